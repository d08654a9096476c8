import { isApiError } from './api-error';

/**
 * React reports every error an error boundary caught with console.error. A refusal the screen
 * handles and explains (a 4xx: not found, not allowed, too many requests) is the app working, so
 * it stays out of the console; anything else (a 5xx, a lost connection, a bug) is still reported.
 */
export function reportCaughtError(error: unknown): void {
  if (isApiError(error) && error.status >= 400 && error.status < 500) return;
  console.error(error);
}
