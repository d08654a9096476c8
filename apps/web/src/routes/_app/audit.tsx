import { localTimeZone } from '@card-console/shared/dates';
import { keepPreviousData, useInfiniteQuery } from '@tanstack/react-query';
import { createFileRoute, redirect } from '@tanstack/react-router';
import { auditQueryOptions } from '../../features/audit/api/get-audit';
import { toAuditFilter } from '../../features/audit/audit-filter';
import { type AuditSearch, validateAuditSearch } from '../../features/audit/audit-search';
import { AuditScreen } from '../../features/audit/components/audit-screen';
import { useCardChoices } from '../../features/cards/api/use-card-choices';
import { ApiError } from '../../lib/api-error';
import { failsInPlace, rethrowDeadEnd } from '../../lib/list-failure';
import { loadInfiniteForRoute } from '../../lib/load-for-route';
import { noticingValidator } from '../../lib/search-params';
import { useUrlPages } from '../../lib/use-url-pages';

const searchCheck = noticingValidator(validateAuditSearch);

export const Route = createFileRoute('/_app/audit')({
  validateSearch: searchCheck.validateSearch,
  // Finance reaches this only by its address (the nav leaves it out): say it is for admins, with
  // a way back (RouteError), without asking the BFF for a 403.
  beforeLoad: ({ context, search, location }) => {
    if (context.session.role !== 'admin') {
      throw new ApiError({
        status: 403,
        code: 'forbidden',
        detail: 'The audit trail is for admins.',
      });
    }
    // A link's bad values leave the address; the screen says which.
    const rejected = searchCheck.takeRejected(location.search, search);
    if (rejected) {
      throw redirect({ to: '/audit', search, replace: true, state: { rejectedSearch: rejected } });
    }
  },
  // Every search value is a filter the loader sends, or how many pages it shows.
  loaderDeps: ({ search }) => search,
  // The loader comes with the screen's code: only the URL check is in the first download.
  codeSplitGroupings: [['loader', 'component']],
  // A failed list is shown in the list's place, the filters kept (AuditScreen): the route
  // fails only for a dead end (not allowed, not found), where filters and Retry cannot help.
  loader: ({ context, deps, cause }) =>
    loadInfiniteForRoute(
      context.queryClient,
      auditQueryOptions(toAuditFilter(deps, localTimeZone)),
      cause,
      deps.pages,
    ).then(() => undefined, rethrowDeadEnd),
  component: AuditRoute,
});

function AuditRoute() {
  const search = Route.useSearch();
  const navigate = Route.useNavigate();
  const filter = toAuditFilter(Route.useLoaderDeps(), localTimeZone);
  const query = useInfiniteQuery({
    ...auditQueryOptions(filter),
    placeholderData: keepPreviousData,
    // A failed first page shows in the list's place with a Retry; a failed "Load more" keeps
    // the records shown.
    ...failsInPlace,
  });
  const list = useUrlPages(query, search.pages ?? 1, (shown) =>
    navigate({
      search: (prev: AuditSearch) => ({ ...prev, pages: shown > 1 ? shown : undefined }),
      replace: true,
      resetScroll: false,
    }),
  );
  // Card names for the card filter (loaded when it is opened) and for the records' cards.
  const cards = useCardChoices(search.cardId);
  return (
    <AuditScreen
      search={search}
      filter={filter}
      cards={cards}
      list={list}
      error={list ? undefined : (query.error ?? undefined)}
      onRetry={() => void query.refetch()}
      busy={query.isPlaceholderData || (query.isFetching && !list)}
    />
  );
}
