import { useSuspenseQuery } from '@tanstack/react-query';
import { createFileRoute } from '@tanstack/react-router';
import { sessionQueryOptions } from '../../features/session/api/get-session';
import { subAccountsQueryOptions } from '../../features/sub-accounts/api/get-sub-accounts';
import { SubAccountsScreen } from '../../features/sub-accounts/components/sub-accounts-screen';

export const Route = createFileRoute('/_app/sub-accounts')({
  loader: ({ context }) => context.queryClient.ensureQueryData(subAccountsQueryOptions()),
  component: SubAccountsRoute,
});

function SubAccountsRoute() {
  const { data } = useSuspenseQuery(subAccountsQueryOptions());
  const { data: session } = useSuspenseQuery(sessionQueryOptions());
  return <SubAccountsScreen subAccounts={data} role={session.role} />;
}
