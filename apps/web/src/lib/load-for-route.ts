import type {
  FetchInfiniteQueryOptions,
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

/** `loadForRoute` for a list that "Load more" extends (an infinite query). */
export async function loadInfiniteForRoute<TData, TKey extends QueryKey, TPageParam>(
  queryClient: QueryClient,
  options: FetchInfiniteQueryOptions<TData, Error, TData, TKey, TPageParam>,
  cause: 'preload' | 'enter' | 'stay',
): Promise<void> {
  if (cause === 'stay') {
    void queryClient.prefetchInfiniteQuery(options);
    return;
  }
  await queryClient.ensureInfiniteQueryData(options);
}
