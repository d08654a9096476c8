import { useQueryErrorResetBoundary } from '@tanstack/react-query';
import { type ErrorComponentProps, Link, useRouter } from '@tanstack/react-router';
import { isDeadEndError } from '../lib/api-error';
import { DeadEnd } from './dead-end';
import { ErrorState } from './error-state';

/**
 * A route's error: the message, the request id, and a retry that reloads the route's data.
 * Not allowed (403) and not found (404) are dead ends rather than failures: asking again gives
 * the same answer, so they say so and offer a way on instead of a retry.
 */
export function RouteError({ error, reset }: ErrorComponentProps) {
  const router = useRouter();
  const queryErrorReset = useQueryErrorResetBoundary();
  const retry = () => {
    queryErrorReset.reset();
    reset();
    void router.invalidate();
  };
  if (isDeadEndError(error)) {
    return (
      <DeadEnd
        title={error.status === 403 ? 'Not allowed' : 'Not found'}
        back={<Link to="/overview">Go to the Overview</Link>}
      >
        {error.message}
      </DeadEnd>
    );
  }
  return <ErrorState error={error} onRetry={retry} />;
}
