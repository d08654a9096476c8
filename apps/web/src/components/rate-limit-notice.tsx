import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useSyncExternalStore } from 'react';
import { isRetryableApiError } from '../lib/api-error';
import { useCountdown } from './use-countdown';

/**
 * While a query waits to retry after a 429 or 503, say so and when: the data is coming,
 * the screen is not stuck.
 */
export function RateLimitNotice() {
  const queryClient = useQueryClient();
  const subscribe = useCallback(
    (onChange: () => void) => queryClient.getQueryCache().subscribe(onChange),
    [queryClient],
  );
  const waiting = useSyncExternalStore(subscribe, () => {
    for (const query of queryClient.getQueryCache().getAll()) {
      const reason = query.state.fetchFailureReason;
      if (query.state.fetchStatus === 'fetching' && isRetryableApiError(reason)) {
        return `${reason.status}:${reason.retryAfterSeconds ?? 0}:${query.state.fetchFailureCount}`;
      }
    }
    return '';
  });
  if (!waiting) return null;
  return <RetryingIn waiting={waiting} />;
}

function RetryingIn({ waiting }: { waiting: string }) {
  const [status, seconds] = waiting.split(':').map(Number);
  const left = useCountdown(seconds, undefined, waiting);
  return (
    <p className="notice" role="status">
      {status === 429 ? 'Too many requests' : 'The service is busy'} — retrying in {left ?? 0} s
    </p>
  );
}
