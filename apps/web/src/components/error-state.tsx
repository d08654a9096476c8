import { isApiError, isRetryableApiError } from '../lib/api-error';
import { MAX_AUTO_RETRY_SECONDS } from '../lib/retry-policy';
import { useSecondsUntil } from './use-countdown';

function titleFor(error: unknown): string {
  if (!isApiError(error)) return 'Something went wrong';
  if (error.status === 403) return 'You do not have access to this';
  if (error.status === 404) return 'Not found';
  if (error.status === 429) return 'Too many requests';
  if (error.status === 503) return 'The service is busy';
  if (error.status === 0) return 'No connection';
  if (error.status >= 500) return 'Something went wrong on our side';
  return 'Something went wrong';
}

/**
 * What the person reads. An answer the SPA could not read as a problem (a proxy's page, a bare
 * status) has only a status line, which means nothing to them: plain words instead.
 */
function messageFor(error: unknown): string {
  if (isApiError(error) && (error.code === 'http_error' || error.code === 'invalid_response')) {
    const support = error.requestId
      ? ' If it keeps happening, tell support the request id below.'
      : '';
    return error.status >= 500
      ? `The server could not answer just now. Try again in a moment.${support}`
      : `The server sent an answer this page does not understand. Try again.${support}`;
  }
  return error instanceof Error ? error.message : String(error);
}

/**
 * An error with what the person can do about it: its message, request id and a retry. A 429
 * or 503 retries by itself when the server said it may (a default of 5 s when it did not say);
 * a wait longer than the app sits out says until when instead.
 */
export function ErrorState({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const retryable = isRetryableApiError(error);
  const wait = retryable ? (error.retryAfterSeconds ?? 5) : undefined;
  const deadline = retryable && wait !== undefined ? error.receivedAt + wait * 1000 : undefined;
  const auto = wait !== undefined && wait <= MAX_AUTO_RETRY_SECONDS;
  const left = useSecondsUntil(auto ? deadline : undefined, onRetry);
  const message = messageFor(error);
  const when =
    deadline === undefined
      ? ''
      : auto
        ? left
          ? `retrying in ${left} s`
          : 'retrying now…'
        : `try again after ${new Date(deadline).toLocaleTimeString([], { timeStyle: 'short' })}`;
  return (
    <div className="error-state" role="alert">
      <h2>{titleFor(error)}</h2>
      {retryable ? (
        <p>{`${error.status === 429 ? 'Too many requests' : message} — ${when}`}</p>
      ) : (
        <p>{message}</p>
      )}
      {isApiError(error) && error.requestId ? (
        <p className="muted">
          Request id for support: <code className="request-id">{error.requestId}</code>
        </p>
      ) : null}
      {onRetry ? (
        <button type="button" onClick={onRetry}>
          Retry
        </button>
      ) : null}
    </div>
  );
}
