import { useSuspenseQuery } from '@tanstack/react-query';
import { createFileRoute } from '@tanstack/react-router';
import { accountingCategoriesQueryOptions } from '../../features/accounting-categories/api/get-accounting-categories';
import { ChartOfAccountsScreen } from '../../features/accounting-categories/components/chart-of-accounts-screen';

export const Route = createFileRoute('/_app/accounting-categories')({
  // The loader comes with the screen's code: nothing of this screen is in the first download.
  codeSplitGroupings: [['loader', 'component']],
  loader: ({ context }) => context.queryClient.ensureQueryData(accountingCategoriesQueryOptions()),
  component: ChartOfAccountsRoute,
});

/** Admins keep the chart; finance, who book to it, read it. */
function ChartOfAccountsRoute() {
  const { data } = useSuspenseQuery(accountingCategoriesQueryOptions());
  const { session } = Route.useRouteContext();
  return <ChartOfAccountsScreen categories={data} readOnly={session.role !== 'admin'} />;
}
