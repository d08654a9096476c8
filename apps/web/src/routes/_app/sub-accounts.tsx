import { useQuery, useSuspenseQuery } from '@tanstack/react-query';
import { createFileRoute } from '@tanstack/react-router';
import { sessionQueryOptions } from '../../features/session/api/get-session';
import { subAccountsQueryOptions } from '../../features/sub-accounts/api/get-sub-accounts';
import { SubAccountsScreen } from '../../features/sub-accounts/components/sub-accounts-screen';
import { failsInPlace, rethrowDeadEnd } from '../../lib/list-failure';

export const Route = createFileRoute('/_app/sub-accounts')({
  // A failed list is shown in the list's place, the header kept (SubAccountsScreen): the route
  // fails only for a dead end (not allowed, not found), where Retry cannot help.
  loader: ({ context }) =>
    context.queryClient
      .ensureQueryData(subAccountsQueryOptions())
      .then(() => undefined, rethrowDeadEnd),
  component: SubAccountsRoute,
});

function SubAccountsRoute() {
  const query = useQuery({ ...subAccountsQueryOptions(), ...failsInPlace });
  const { data: session } = useSuspenseQuery(sessionQueryOptions());
  return (
    <SubAccountsScreen
      subAccounts={query.data}
      error={query.data ? undefined : (query.error ?? undefined)}
      onRetry={() => void query.refetch()}
      busy={query.isFetching && !query.data}
      role={session.role}
    />
  );
}
