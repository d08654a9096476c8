import { ErrorState } from './error-state';
import { Loading } from './loading';

/**
 * What a list's place shows before its first page is there: why it failed, with the request id
 * and a Retry, the screen around it (header, filters) kept; or "Loading…" while it is asked for.
 */
export function ListNotLoaded({
  error,
  busy,
  onRetry,
}: {
  error: unknown;
  /** Asked for again (a Retry, another filter): the old failure no longer says anything. */
  busy: boolean;
  onRetry?: (() => void) | undefined;
}) {
  if (error === undefined || error === null || busy) return <Loading />;
  return (
    <div className="list-error">
      <ErrorState error={error} onRetry={onRetry} />
    </div>
  );
}
