import { useSuspenseQuery } from '@tanstack/react-query';
import { createFileRoute } from '@tanstack/react-router';
import { accountingCategoriesQueryOptions } from '../../features/accounting-categories/api/get-accounting-categories';
import { ChartOfAccountsScreen } from '../../features/accounting-categories/components/chart-of-accounts-screen';
import { ApiError } from '../../lib/api-error';

export const Route = createFileRoute('/_app/accounting-categories')({
  // Finance reaches this only by its address (the nav leaves it out): say it is for admins, with
  // a way back (RouteError). Finance reads the categories in a transaction's notes, not here.
  beforeLoad: ({ context }) => {
    if (context.session.role !== 'admin') {
      throw new ApiError({
        status: 403,
        code: 'forbidden',
        detail: 'The chart of accounts is kept by admins.',
      });
    }
  },
  // The loader comes with the screen's code: nothing of this screen is in the first download.
  codeSplitGroupings: [['loader', 'component']],
  loader: ({ context }) => context.queryClient.ensureQueryData(accountingCategoriesQueryOptions()),
  component: ChartOfAccountsRoute,
});

function ChartOfAccountsRoute() {
  const { data } = useSuspenseQuery(accountingCategoriesQueryOptions());
  return <ChartOfAccountsScreen categories={data} />;
}
