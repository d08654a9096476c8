import { type ApiError, isRetryableApiError } from './api-error';

const MAX_RETRIES = 2;
/**
 * The longest `Retry-After` the app sits out by itself. A server asking for more (a lockout, a
 * misconfigured proxy) gets no automatic retry: the error shows, with when to try again, and a
 * spinner does not run for minutes.
 */
export const MAX_AUTO_RETRY_SECONDS = 60;

/** Retry only what waiting fixes (429, 503), after the wait the server asked for. */
export function retryDelay(failureCount: number, error: unknown): number {
  if (isRetryableApiError(error) && error.retryAfterSeconds !== undefined) {
    return error.retryAfterSeconds * 1000;
  }
  return Math.min(1000 * 2 ** failureCount, 10_000);
}

export function shouldRetry(failureCount: number, error: unknown): boolean {
  return (
    failureCount < MAX_RETRIES &&
    isRetryableApiError(error) &&
    (error.retryAfterSeconds ?? 0) <= MAX_AUTO_RETRY_SECONDS
  );
}

/**
 * When a query that has now failed `failureCount` times, last with `error`, asks again
 * (ms since the epoch): the wait counts from the moment that answer came.
 */
export function retryAt(error: ApiError, failureCount: number): number {
  return error.receivedAt + retryDelay(Math.max(0, failureCount - 1), error);
}
