import type { Card } from '@card-console/shared/api/cards';
import { keepPreviousData, useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { createFileRoute, redirect } from '@tanstack/react-router';
import {
  cardPagesQueryOptions,
  subAccountCardsQueryOptions,
} from '../../../features/cards/api/get-cards';
import { type CardsSearch, validateCardsSearch } from '../../../features/cards/cards-search';
import { CardsScreen } from '../../../features/cards/components/cards-screen';
import { failsInPlace, rethrowDeadEnd } from '../../../lib/list-failure';
import { loadInfiniteForRoute } from '../../../lib/load-for-route';
import { noticingValidator } from '../../../lib/search-params';
import { type PagedList, useUrlPages } from '../../../lib/use-url-pages';

const searchCheck = noticingValidator(validateCardsSearch);

export const Route = createFileRoute('/_app/cards/')({
  validateSearch: searchCheck.validateSearch,
  // A link's bad values leave the address; the screen says which.
  beforeLoad: ({ search, location }) => {
    const rejected = searchCheck.takeRejected(location.search, search);
    if (rejected) {
      throw redirect({ to: '/cards', search, replace: true, state: { rejectedSearch: rejected } });
    }
  },
  loaderDeps: ({ search }) => ({
    subAccountId: search.subAccountId,
    q: search.q,
    status: search.status,
    sort: search.sort,
    direction: search.direction,
    owner: search.owner,
    team: search.team,
    pages: search.pages,
  }),
  // A failed list is shown in the list's place, the filters kept (CardsScreen): the route fails
  // only for a dead end (not allowed, not found), where filters and Retry cannot help.
  loader: ({ context, deps: { pages, subAccountId, ...filter }, cause }) =>
    (subAccountId === undefined
      ? loadInfiniteForRoute(context.queryClient, cardPagesQueryOptions(filter), cause, pages)
      : context.queryClient.ensureQueryData(
          subAccountCardsQueryOptions({ ...filter, subAccountId }),
        )
    ).then(() => undefined, rethrowDeadEnd),
  component: CardsRoute,
});

function CardsRoute() {
  const { subAccountId } = Route.useLoaderDeps();
  return subAccountId === undefined ? (
    <AllCards />
  ) : (
    <SubAccountCards subAccountId={subAccountId} />
  );
}

/** The card service's list, a page at a time. */
function AllCards() {
  const search = Route.useSearch();
  const { pages, subAccountId: _none, ...filter } = Route.useLoaderDeps();
  const navigate = Route.useNavigate();
  const query = useInfiniteQuery({
    ...cardPagesQueryOptions(filter),
    placeholderData: keepPreviousData,
    ...failsInPlace,
  });
  const list = useUrlPages(query, pages ?? 1, (shown) =>
    navigate({
      search: (prev: CardsSearch) => ({ ...prev, pages: shown > 1 ? shown : undefined }),
      replace: true,
      resetScroll: false,
    }),
  );
  return (
    <CardsScreen
      search={search}
      list={list}
      error={list ? undefined : (query.error ?? undefined)}
      onRetry={() => void query.refetch()}
      busy={query.isPlaceholderData || (query.isFetching && !list)}
    />
  );
}

/** The cards that spend from one sub account, from the index: all at once. */
function SubAccountCards({ subAccountId }: { subAccountId: string }) {
  const search = Route.useSearch();
  const { pages: _pages, subAccountId: _sub, ...filter } = Route.useLoaderDeps();
  const query = useQuery({
    ...subAccountCardsQueryOptions({ ...filter, subAccountId }),
    placeholderData: keepPreviousData,
    ...failsInPlace,
  });
  const list: PagedList<Card> | undefined = query.data && {
    rows: query.data.items,
    pages: 1,
    hasMore: false,
    atCap: false,
    loadingMore: false,
    loadMoreError: undefined,
    loadMore: () => {},
  };
  return (
    <CardsScreen
      search={search}
      list={list}
      error={list ? undefined : (query.error ?? undefined)}
      onRetry={() => void query.refetch()}
      busy={query.isPlaceholderData || (query.isFetching && !list)}
    />
  );
}
