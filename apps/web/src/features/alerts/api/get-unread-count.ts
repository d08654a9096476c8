import type { UnreadCount } from '@card-console/shared/api/alerts';
import { queryOptions } from '@tanstack/react-query';
import { apiJson } from '../../../lib/api-client';

/** The bell asks again this often (and when the window regains focus). */
export const UNREAD_POLL_MS = 60_000;

// A path literal rather than ALERTS_API: that module holds the zod schemas, which the bell's
// chunk (loaded with every screen) should not pull in.
export function fetchUnreadCount(signal?: AbortSignal) {
  // A background poll: it does not keep an idle session alive.
  return apiJson<UnreadCount>('/api/alerts/inbox/unread-count', { background: true, signal });
}

/** How many alerts in the caller's inbox are unread: the bell's number. */
export function unreadCountQueryOptions() {
  return queryOptions({
    queryKey: ['alerts', 'unread-count'] as const,
    queryFn: ({ signal }) => fetchUnreadCount(signal),
    select: (count) => count.unread,
  });
}
