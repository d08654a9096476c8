import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useSyncExternalStore } from 'react';
import { isRetryableApiError } from '../lib/api-error';
import { retryAt } from '../lib/retry-policy';
import { useSecondsUntil } from './use-countdown';

/**
 * While a query waits to retry after a 429 or 503, say so and when: the data is coming,
 * the screen is not stuck. The time is the query's own retry time, so the figure is true.
 */
export function RateLimitNotice() {
  const queryClient = useQueryClient();
  const subscribe = useCallback(
    (onChange: () => void) => queryClient.getQueryCache().subscribe(onChange),
    [queryClient],
  );
  const waiting = useSyncExternalStore(subscribe, () => {
    for (const query of queryClient.getQueryCache().getAll()) {
      const { fetchStatus, fetchFailureReason: reason, fetchFailureCount } = query.state;
      if (fetchStatus === 'fetching' && isRetryableApiError(reason)) {
        return `${reason.status}:${retryAt(reason, fetchFailureCount)}`;
      }
    }
    return '';
  });
  if (!waiting) return null;
  const [status, deadline] = waiting.split(':').map(Number);
  return <RetryingIn status={status} deadline={deadline} />;
}

function RetryingIn({ status, deadline }: { status: number | undefined; deadline?: number }) {
  const left = useSecondsUntil(deadline);
  return (
    <p className="notice" role="status">
      {`${status === 429 ? 'Too many requests' : 'The service is busy'} — ${
        left ? `retrying in ${left} s` : 'retrying now…'
      }`}
    </p>
  );
}
