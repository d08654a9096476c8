import { queryOptions } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

/** The bell asks again this often (and when the window regains focus). */
export const UNREAD_POLL_MS = 30_000;

export function fetchUnreadCount(signal?: AbortSignal) {
  // A background poll: it does not keep an idle session alive.
  return api('alerts.unreadCount', { background: true, signal });
}

/** How many alerts in the caller's inbox are unread: the bell's number. */
export function unreadCountQueryOptions() {
  return queryOptions({
    queryKey: ['alerts', 'unread-count'] as const,
    queryFn: ({ signal }) => fetchUnreadCount(signal),
    select: (count) => count.unread,
  });
}
