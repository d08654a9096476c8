import { useQueryErrorResetBoundary } from '@tanstack/react-query';
import { type ErrorComponentProps, useRouter } from '@tanstack/react-router';
import { ErrorState } from './error-state';

/** A route's error: the message, the request id, and a retry that reloads the route's data. */
export function RouteError({ error, reset }: ErrorComponentProps) {
  const router = useRouter();
  const queryErrorReset = useQueryErrorResetBoundary();
  const retry = () => {
    queryErrorReset.reset();
    reset();
    void router.invalidate();
  };
  return <ErrorState error={error} onRetry={retry} />;
}
