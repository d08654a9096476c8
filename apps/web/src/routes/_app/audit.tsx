import { localTimeZone } from '@card-console/shared/dates';
import { keepPreviousData, useInfiniteQuery } from '@tanstack/react-query';
import { createFileRoute } from '@tanstack/react-router';
import { useMemo } from 'react';
import { Loading } from '../../components/loading';
import { auditQueryOptions } from '../../features/audit/api/get-audit';
import { toAuditFilter } from '../../features/audit/audit-filter';
import { validateAuditSearch } from '../../features/audit/audit-search';
import { AuditScreen } from '../../features/audit/components/audit-screen';
import { useCardChoices } from '../../features/cards/api/use-card-choices';
import { ApiError } from '../../lib/api-error';
import { loadInfiniteForRoute } from '../../lib/load-for-route';

export const Route = createFileRoute('/_app/audit')({
  validateSearch: validateAuditSearch,
  // Finance reaches this only by its address (the nav leaves it out): say it is for admins, with
  // a way back (RouteError), without asking the BFF for a 403.
  beforeLoad: ({ context }) => {
    if (context.session.role !== 'admin') {
      throw new ApiError({
        status: 403,
        code: 'forbidden',
        message: 'The audit trail is for admins.',
      });
    }
  },
  // Every search value is a filter the loader sends.
  loaderDeps: ({ search }) => search,
  // The loader comes with the screen's code: only the URL check is in the first download.
  codeSplitGroupings: [['loader', 'component']],
  loader: ({ context, deps, cause }) =>
    loadInfiniteForRoute(
      context.queryClient,
      auditQueryOptions(toAuditFilter(deps, localTimeZone)),
      cause,
    ),
  component: AuditRoute,
});

function AuditRoute() {
  const search = Route.useSearch();
  const query = useInfiniteQuery({
    ...auditQueryOptions(toAuditFilter(Route.useLoaderDeps(), localTimeZone)),
    placeholderData: keepPreviousData,
    // A failed first page is the route's error; a failed "Load more" keeps the records shown.
    throwOnError: (_error, q) => q.state.data === undefined,
  });
  // Card names for the card filter: loaded when it is opened.
  const cards = useCardChoices(search.cardId);
  const { data, fetchNextPage, isFetchingNextPage } = query;
  const records = useMemo(() => data?.pages.flatMap((p) => p.items) ?? [], [data]);
  if (!data) return <Loading />;
  const list = {
    records,
    hasMore: query.hasNextPage,
    loadingMore: isFetchingNextPage,
    loadMoreError: query.isFetchNextPageError ? query.error : undefined,
    // One request at a time: a second click while a page is on its way does nothing.
    onLoadMore: () => {
      if (!isFetchingNextPage) void fetchNextPage({ cancelRefetch: false });
    },
  };
  return <AuditScreen search={search} cards={cards} list={list} busy={query.isPlaceholderData} />;
}
