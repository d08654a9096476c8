import { isDeadEndError } from './api-error';

/**
 * A list route's loader `.catch`: a dead end (not allowed, not found) fails the route, where
 * filters and a Retry cannot help; any other failure is left for the screen to show in the
 * list's place, its header and filters kept.
 */
export function rethrowDeadEnd(error: unknown): void {
  if (isDeadEndError(error)) throw error;
}

/**
 * A screen's main list query, for a failure shown in the list's place: the loader's failure is
 * not asked again on mount (the screen offers Retry), and only a dead end with nothing shown
 * fails the route. A failed refresh or "Load more" keeps what is shown.
 */
export const failsInPlace = {
  retryOnMount: false,
  throwOnError: (error: Error, query: { state: { data: unknown } }) =>
    query.state.data === undefined && isDeadEndError(error),
} as const;
