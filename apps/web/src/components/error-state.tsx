import { isApiError, isRetryableApiError } from '../lib/api-error';
import { useCountdown } from './use-countdown';

function titleFor(error: unknown): string {
  if (!isApiError(error)) return 'Something went wrong';
  if (error.status === 403) return 'You do not have access to this';
  if (error.status === 404) return 'Not found';
  if (error.status === 429) return 'Too many requests';
  if (error.status === 503) return 'The service is busy';
  if (error.status === 0) return 'No connection';
  return 'Something went wrong';
}

/** An error with what the person can do about it: its message, request id and a retry. */
export function ErrorState({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const waitSeconds = isRetryableApiError(error) ? (error.retryAfterSeconds ?? 5) : undefined;
  const left = useCountdown(waitSeconds, onRetry, error);
  const message = error instanceof Error ? error.message : String(error);
  return (
    <div className="error-state" role="alert">
      <h2>{titleFor(error)}</h2>
      {isApiError(error) && error.status === 429 ? (
        <p>Too many requests — retrying in {left ?? 0} s</p>
      ) : isRetryableApiError(error) ? (
        <p>
          {message} — retrying in {left ?? 0} s
        </p>
      ) : (
        <p>{message}</p>
      )}
      {isApiError(error) && error.requestId ? (
        <p className="muted">
          Request id: <code>{error.requestId}</code>
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
