import type {
  IndexFreshness,
  IndexPage,
  IndexQuery,
  IndexTotalsQuery,
} from '@card-console/shared/api/transaction-index';
import {
  infiniteQueryOptions,
  queryOptions,
  useMutation,
  useQueryClient,
} from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { STALE_MS } from '../../../lib/query-client';

/** How often to ask again while the index is syncing what the list shows. */
export const SYNCING_POLL_MS = 1_000;

/**
 * When to ask again: every second while a sync runs; after a failed sync, once its retry time
 * has come (that read starts it again, and its answer says it is syncing); else not by itself.
 */
export function askAgainIn(
  freshness: IndexFreshness | undefined,
  now = Date.now(),
): number | false {
  if (!freshness) return false;
  if (freshness.syncing) return SYNCING_POLL_MS;
  const retryAt = freshness.failed?.retryAt;
  return retryAt === undefined ? false : Math.max(SYNCING_POLL_MS, retryAt - now + SYNCING_POLL_MS);
}

/**
 * Every list the index answers, and every list's figures, live under this key (a change of
 * notes invalidates them).
 */
export const indexListsKey = ['transactions', 'index'] as const;

export function fetchIndexTransactions(query: IndexQuery, signal?: AbortSignal) {
  return api('index.transactions', { query, signal });
}

/**
 * The list from its first page, which "Load more" extends a page at a time (keyset: rows the
 * index gains meanwhile neither repeat nor shift the pages). While a sync of what it shows
 * runs, the list asks again every second (after a failed one, once its retry time has come); a
 * list that has grown never goes stale by itself.
 */
export function indexTransactionsQueryOptions(query: IndexQuery) {
  return infiniteQueryOptions({
    queryKey: [...indexListsKey, query] as const,
    queryFn: ({ pageParam, signal }) =>
      fetchIndexTransactions(pageParam ? { ...query, cursor: pageParam } : query, signal),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last: IndexPage) => last.nextCursor,
    staleTime: (q) => ((q.state.data?.pages.length ?? 0) > 1 ? Infinity : STALE_MS),
    refetchInterval: (q) =>
      q.state.data?.pages.length === 1 ? askAgainIn(q.state.data.pages[0]?.freshness) : false,
  });
}

/**
 * The figures of the list's whole set (and its totals by a dimension): a second answer, so the
 * rows never wait on them. While a sync of what they count runs, asked again every second.
 */
export function indexTotalsQueryOptions(query: IndexTotalsQuery) {
  return queryOptions({
    queryKey: [...indexListsKey, 'totals', query] as const,
    queryFn: ({ signal }) => api('index.totals', { query, signal }),
    staleTime: STALE_MS,
    refetchInterval: (q) => askAgainIn(q.state.data?.freshness),
  });
}

/**
 * Refresh: the BFF reads the asked sub accounts' open days again (at most once in 5 s), then
 * the list is asked for from its first page.
 */
export function useRefreshIndex(query: IndexQuery) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async () => {
      const { subAccountId } = query;
      await fetchIndexTransactions({
        ...(subAccountId === undefined ? {} : { subAccountId }),
        refresh: '1',
        limit: '1',
      });
    },
    onSuccess: () => queryClient.resetQueries({ queryKey: indexListsKey }),
  });
}
