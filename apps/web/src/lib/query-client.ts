import { QueryClient } from '@tanstack/react-query';
import { retryDelay, shouldRetry } from './retry-policy';

/** How long fetched data counts as fresh (no refetch on mount or re-entry). */
export const STALE_MS = 30_000;

export function createQueryClient(options: { retry?: false } = {}): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        retry: options.retry ?? shouldRetry,
        retryDelay,
        staleTime: STALE_MS,
        refetchOnWindowFocus: false,
      },
      mutations: { retry: false },
    },
  });
}
