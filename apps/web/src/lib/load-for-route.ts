import type {
  FetchInfiniteQueryOptions,
  GetNextPageParamFunction,
  QueryClient,
  QueryKey,
  UseQueryOptions,
} from '@tanstack/react-query';

/**
 * A list route's loader. Entering the screen waits for the data so the first paint has it.
 * Paging or filtering within the screen ('stay') does not wait: the screen keeps showing the
 * previous page (placeholderData: keepPreviousData), marked busy, until the next arrives;
 * otherwise the router would swap the page for the loading state.
 */
export async function loadForRoute<TData, TKey extends QueryKey>(
  queryClient: QueryClient,
  options: UseQueryOptions<TData, Error, TData, TKey> & { queryKey: TKey },
  cause: 'preload' | 'enter' | 'stay',
): Promise<void> {
  if (cause === 'stay') {
    void queryClient.prefetchQuery(options);
    return;
  }
  await queryClient.ensureQueryData(options);
}

/**
 * `loadForRoute` for a list that "Load more" extends (an infinite query). `pages` is how many
 * pages from the first the URL shows: entering reads that many before the first paint (a
 * reload or a shared link); a list already cached keeps what it has and the screen fetches any
 * page it lacks.
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
