import { localTimeZone } from '@card-console/shared/dates';
import { keepPreviousData, useInfiniteQuery, useSuspenseQuery } from '@tanstack/react-query';
import { createFileRoute, redirect } from '@tanstack/react-router';
import { useMemo } from 'react';
import { Loading } from '../../../components/loading';
import { useCardChoices } from '../../../features/cards/api/use-card-choices';
import { subAccountsQueryOptions } from '../../../features/sub-accounts/api/get-sub-accounts';
import { transactionsQueryOptions } from '../../../features/transactions/api/get-transactions';
import {
  type TransactionList,
  TransactionsScreen,
} from '../../../features/transactions/components/transactions-screen';
import {
  type TransactionFilter,
  toTransactionFilter,
  validateTransactionsSearch,
} from '../../../features/transactions/transactions-search';
import { currentCursor } from '../../../lib/cursor-stack';
import { loadInfiniteForRoute } from '../../../lib/load-for-route';

export const Route = createFileRoute('/_app/transactions/')({
  validateSearch: validateTransactionsSearch,
  // The sub account is required: default to the first one, in the URL so the link is complete.
  beforeLoad: async ({ context, search }) => {
    if (search.subAccountId) return;
    const subAccounts = await context.queryClient.ensureQueryData(subAccountsQueryOptions());
    const first = subAccounts[0];
    if (first) {
      // Ask for the list now: the redirected load's loader then waits on this same request.
      const filter = toTransactionFilter({ ...search, subAccountId: first.id }, localTimeZone);
      const cursor = currentCursor(search.cursors);
      void context.queryClient.prefetchInfiniteQuery(
        transactionsQueryOptions({ ...filter, cursor }),
      );
      throw redirect({
        to: '/transactions',
        search: { ...search, subAccountId: first.id },
        replace: true,
      });
    }
  },
  loaderDeps: ({ search }) => ({
    subAccountId: search.subAccountId,
    from: search.from,
    to: search.to,
    status: search.status,
    cardId: search.cardId,
    cursor: currentCursor(search.cursors),
  }),
  loader: async ({ context, deps, cause }) => {
    await context.queryClient.ensureQueryData(subAccountsQueryOptions());
    if (!deps.subAccountId) return;
    const { subAccountId, cursor } = deps;
    const filter = toTransactionFilter({ ...deps, subAccountId }, localTimeZone);
    await loadInfiniteForRoute(
      context.queryClient,
      transactionsQueryOptions({ ...filter, cursor }),
      cause,
    );
  },
  component: TransactionsRoute,
});

function TransactionsRoute() {
  const search = Route.useSearch();
  const { subAccountId, cursor, ...rest } = Route.useLoaderDeps();
  const { data: subAccounts } = useSuspenseQuery(subAccountsQueryOptions());
  // Card names are a nicety for the filter and the table: loaded when the card filter is opened.
  const cards = useCardChoices(search.cardId);
  const screen = { search, subAccounts, cards };
  if (!subAccountId) {
    return <TransactionsScreen {...screen} filter={undefined} list={undefined} busy={false} />;
  }
  const filter = toTransactionFilter({ ...rest, subAccountId }, localTimeZone);
  return <TransactionsPage screen={screen} filter={filter} cursor={cursor} />;
}

function TransactionsPage({
  screen,
  filter,
  cursor,
}: {
  screen: Omit<React.ComponentProps<typeof TransactionsScreen>, 'filter' | 'list' | 'busy'>;
  filter: TransactionFilter;
  cursor: string | undefined;
}) {
  const query = useInfiniteQuery({
    ...transactionsQueryOptions({ ...filter, cursor }),
    placeholderData: keepPreviousData,
    // A failed first page is the route's error; a failed "Load more" keeps the rows shown.
    throwOnError: (_error, q) => q.state.data === undefined,
  });
  const { data, fetchNextPage, isFetchingNextPage } = query;
  const rows = useMemo(() => data?.pages.flatMap((p) => p.items) ?? [], [data]);
  if (!data) return <Loading />;
  const list: TransactionList = {
    rows,
    nextCursor: data.pages.at(-1)?.nextCursor,
    loadingMore: isFetchingNextPage,
    loadMoreError: query.isFetchNextPageError ? query.error : undefined,
    // One request at a time: a second click while a page is on its way does nothing.
    onLoadMore: () => {
      if (!isFetchingNextPage) void fetchNextPage({ cancelRefetch: false });
    },
  };
  return (
    <TransactionsScreen {...screen} filter={filter} list={list} busy={query.isPlaceholderData} />
  );
}
