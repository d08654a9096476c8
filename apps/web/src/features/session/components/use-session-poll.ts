import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { fetchSession, sessionQueryOptions } from '../api/get-session';

const POLL_MS = 60_000;

/**
 * Asks "who am I" now and then, marked as background so it does not keep an idle session
 * alive; a 401 from it sends the person to sign-in (handled by the API client's listener).
 */
export function useSessionPoll(intervalMs = POLL_MS) {
  const queryClient = useQueryClient();
  useEffect(() => {
    const timer = setInterval(() => {
      fetchSession({ background: true })
        .then((session) => queryClient.setQueryData(sessionQueryOptions().queryKey, session))
        .catch(() => {
          // A 401 is handled globally; anything else is retried at the next tick.
        });
    }, intervalMs);
    return () => clearInterval(timer);
  }, [queryClient, intervalMs]);
}
