import type {
  FetchInfiniteQueryOptions,
  GetNextPageParamFunction,
  QueryClient,
  QueryKey,
} from '@tanstack/react-query';

/**
 * A list route's loader, for a list that "Load more" extends (an infinite query). Entering the
 * screen waits for the data so the first paint has it: `pages` from the first, as many as the
 * URL shows (a reload, a shared link); a list already cached keeps what it has and the screen
 * fetches any page it lacks. Filtering within the screen ('stay') does not wait: the screen
 * keeps showing the previous rows (placeholderData: keepPreviousData), marked busy, until the
 * new ones arrive; otherwise the router would swap the page for the loading state.
 */
export async function loadInfiniteForRoute<TData, TKey extends QueryKey, TPageParam>(
  queryClient: QueryClient,
  options: FetchInfiniteQueryOptions<TData, Error, TData, TKey, TPageParam> & {
    getNextPageParam: GetNextPageParamFunction<TPageParam, TData>;
  },
  cause: 'preload' | 'enter' | 'stay',
  pages = 1,
): Promise<void> {
  const withPages = pages > 1 ? { ...options, pages } : options;
  if (cause === 'stay') {
    void queryClient.prefetchInfiniteQuery(withPages);
    return;
  }
  await queryClient.ensureInfiniteQueryData(withPages);
}
