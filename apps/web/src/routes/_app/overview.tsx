import { instantToIsoDay, localTimeZone } from '@card-console/shared/dates';
import { keepPreviousData, useQuery, useSuspenseQuery } from '@tanstack/react-query';
import { createFileRoute, redirect } from '@tanstack/react-router';
import { overviewQueryOptions } from '../../features/overview/api/get-overview';
import { OverviewScreen } from '../../features/overview/components/overview-screen';
import {
  type OverviewSearch,
  periodDays,
  validateOverviewSearch,
} from '../../features/overview/overview-search';
import { subAccountsQueryOptions } from '../../features/sub-accounts/api/get-sub-accounts';
import { failsInPlace, rethrowDeadEnd } from '../../lib/list-failure';
import { noticingValidator } from '../../lib/search-params';

const searchCheck = noticingValidator(validateOverviewSearch);

/** The period's days and zone: "the last 30 days" ends today where the person is. */
function overviewQuery(search: OverviewSearch) {
  const tz = localTimeZone();
  const days = periodDays(search, instantToIsoDay(Date.now(), tz));
  return { subAccountId: search.subAccountId, ...days, tz };
}

export const Route = createFileRoute('/_app/overview')({
  validateSearch: searchCheck.validateSearch,
  // A link's bad values leave the address; the screen says which.
  beforeLoad: ({ search, location }) => {
    const rejected = searchCheck.takeRejected(location.search, search);
    if (rejected) {
      throw redirect({
        to: '/overview',
        search,
        replace: true,
        state: { rejectedSearch: rejected },
      });
    }
  },
  loaderDeps: ({ search }) => search,
  // The loader comes with the screen's code (and the charts'): only the URL check is in the
  // first download.
  codeSplitGroupings: [['loader', 'component']],
  // Failed numbers are shown in the tiles' and charts' place, the choices kept (OverviewScreen);
  // the route fails for a dead end, or when the sub accounts the choices need cannot be read.
  loader: async ({ context, deps, cause }) => {
    const overview = overviewQueryOptions(overviewQuery(deps));
    // Changing the choice within the screen keeps the numbers shown until the new ones come.
    if (cause === 'stay') {
      void context.queryClient.prefetchQuery(overview);
      return;
    }
    await Promise.all([
      context.queryClient.ensureQueryData(overview).catch(rethrowDeadEnd),
      context.queryClient.ensureQueryData(subAccountsQueryOptions()),
    ]);
  },
  component: OverviewRoute,
});

function OverviewRoute() {
  const search = Route.useSearch();
  const query = overviewQuery(Route.useLoaderDeps());
  const { data: subAccounts } = useSuspenseQuery(subAccountsQueryOptions());
  const overview = useQuery({
    ...overviewQueryOptions(query),
    placeholderData: keepPreviousData,
    ...failsInPlace,
  });
  return (
    <OverviewScreen
      search={search}
      query={query}
      subAccounts={subAccounts}
      overview={overview.data}
      error={overview.data ? undefined : (overview.error ?? undefined)}
      onRetry={() => void overview.refetch()}
      busy={overview.isPlaceholderData || (overview.isFetching && !overview.data)}
    />
  );
}
