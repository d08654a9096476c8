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

/**
 * After going to sign-in (signed out, or the session ended): nothing read for the person stays
 * in this browser. What no screen shows any more is dropped; what the sign-in page shows (what
 * this server offers: the ways to sign in, the demo accounts) is reset and read again. `clear()`
 * would drop those too, cancelling a read in flight without a word to the page still showing
 * it: the page then waited forever, without the demo accounts.
 */
export function forgetSignedInData(queryClient: QueryClient): Promise<void> {
  queryClient.getMutationCache().clear();
  queryClient.removeQueries({ type: 'inactive' });
  return queryClient.resetQueries({ type: 'active' });
}
