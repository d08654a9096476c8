import { localTimeZone } from '@card-console/shared/dates';
import {
  keepPreviousData,
  useInfiniteQuery,
  useQuery,
  useSuspenseQuery,
} from '@tanstack/react-query';
import { createFileRoute, redirect } from '@tanstack/react-router';
import { useMemo } from 'react';
import { useCardChoices } from '../../../features/cards/api/use-card-choices';
import { subAccountsQueryOptions } from '../../../features/sub-accounts/api/get-sub-accounts';
import {
  indexTotalsQueryOptions,
  indexTransactionsQueryOptions,
} from '../../../features/transactions/api/get-index-transactions';
import { TransactionsScreen } from '../../../features/transactions/components/transactions-screen';
import {
  chosenDays,
  type TransactionsSearch,
  toIndexQuery,
  toTotalsQuery,
  validateTransactionsSearch,
} from '../../../features/transactions/transactions-search';
import { failsInPlace, rethrowDeadEnd } from '../../../lib/list-failure';
import { loadInfiniteForRoute } from '../../../lib/load-for-route';
import { noticingValidator } from '../../../lib/search-params';
import { useUrlPages } from '../../../lib/use-url-pages';

const searchCheck = noticingValidator(validateTransactionsSearch);

export const Route = createFileRoute('/_app/transactions/')({
  validateSearch: searchCheck.validateSearch,
  // A link's bad values leave the address (the screen says which).
  beforeLoad: ({ search, location }) => {
    const rejected = searchCheck.takeRejected(location.search, search);
    if (rejected) {
      throw redirect({
        to: '/transactions',
        search,
        replace: true,
        state: { rejectedSearch: rejected },
      });
    }
  },
  loaderDeps: ({ search }) => search,
  // A failed list is shown in the list's place, the filters kept (TransactionsScreen); the route
  // fails for a dead end, or when the sub accounts the filters need cannot be read.
  // The figures are asked at once beside the rows, but the screen never waits for them.
  loader: async ({ context, deps, cause }) => {
    const { pages, ...search } = deps;
    const query = toIndexQuery(search, localTimeZone, Date.now());
    void context.queryClient
      .prefetchQuery(indexTotalsQueryOptions(toTotalsQuery(query, search.by)))
      .catch(() => undefined);
    const list = loadInfiniteForRoute(
      context.queryClient,
      indexTransactionsQueryOptions(query),
      cause,
      pages,
    ).catch(rethrowDeadEnd);
    await Promise.all([context.queryClient.ensureQueryData(subAccountsQueryOptions()), list]);
  },
  component: TransactionsRoute,
});

function TransactionsRoute() {
  const { pages, ...search } = Route.useSearch();
  const { data: subAccounts } = useSuspenseQuery(subAccountsQueryOptions());
  // Card names are a nicety for the filter and the table: loaded when the card filter is opened.
  const cards = useCardChoices(search.cardId);
  const key = JSON.stringify(search);
  // A preset's days are the person's today's: the same query all day long.
  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` is the search, by value
  const query = useMemo(() => toIndexQuery(search, localTimeZone, Date.now()), [key]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` is the search, by value
  const days = useMemo(() => chosenDays(search, localTimeZone, Date.now()), [key]);
  const navigate = Route.useNavigate();
  const list = useInfiniteQuery({
    ...indexTransactionsQueryOptions(query),
    placeholderData: keepPreviousData,
    ...failsInPlace,
  });
  const shown = useUrlPages(list, pages ?? 1, (count) =>
    navigate({
      search: (prev: TransactionsSearch) => ({ ...prev, pages: count > 1 ? count : undefined }),
      replace: true,
      resetScroll: false,
    }),
  );
  const answer = shown ? list.data?.pages[0] : undefined;
  const totals = useQuery({
    ...indexTotalsQueryOptions(toTotalsQuery(query, search.by)),
    placeholderData: keepPreviousData,
  });
  return (
    <TransactionsScreen
      search={{ ...search, pages }}
      query={query}
      days={days}
      list={answer ? shown : undefined}
      answer={answer}
      totals={totals.data}
      totalsError={totals.data ? undefined : (totals.error ?? undefined)}
      totalsBusy={totals.isPlaceholderData || totals.isFetching}
      error={answer ? undefined : (list.error ?? undefined)}
      onRetry={() => void list.refetch()}
      subAccounts={subAccounts}
      cards={cards}
      busy={list.isPlaceholderData || (list.isFetching && !answer)}
    />
  );
}
