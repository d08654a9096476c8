import { QueryClient } from '@tanstack/react-query';
import { isRetryableApiError } from './api-error';

const MAX_RETRIES = 2;
/** How long fetched data counts as fresh (no refetch on mount or re-entry). */
export const STALE_MS = 30_000;

/** Retry only what waiting fixes (429, 503), after the wait the server asked for. */
export function retryDelay(failureCount: number, error: unknown): number {
  if (isRetryableApiError(error) && error.retryAfterSeconds !== undefined) {
    return Math.min(error.retryAfterSeconds, 60) * 1000;
  }
  return Math.min(1000 * 2 ** failureCount, 10_000);
}

export function shouldRetry(failureCount: number, error: unknown): boolean {
  return failureCount < MAX_RETRIES && isRetryableApiError(error);
}

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
