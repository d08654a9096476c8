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
 * The `meta` of a query that holds nothing of the person signed in (what the sign-in page shows:
 * the ways to sign in, the demo accounts and code): kept when someone signs out.
 */
export const keptAcrossSignOut = { keptAcrossSignOut: true } as const;

/**
 * After going to sign-in (signed out, or the session ended): nothing read for the person stays in
 * this browser. Every query is removed but those marked `keptAcrossSignOut`, which are left as
 * they are: `clear()` also removed what the sign-in page was showing, cancelling a read of it in
 * flight without a word to the page, which then waited forever without its demo accounts; and
 * reading them again would blank the page's demo accounts and code field for a moment.
 */
export function forgetSignedInData(queryClient: QueryClient): void {
  queryClient.getMutationCache().clear();
  queryClient.removeQueries({ predicate: (query) => query.meta?.keptAcrossSignOut !== true });
}
