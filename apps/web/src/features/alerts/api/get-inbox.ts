import { infiniteQueryOptions } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

export const INBOX_PAGE_SIZE = 20;

export function fetchInboxPage(cursor: string | undefined, limit: number, signal?: AbortSignal) {
  return api('alerts.inbox', { query: { cursor, limit: String(limit) }, signal });
}

/** The caller's alerts, newest first, a page at a time (the next page by its cursor). */
export function inboxQueryOptions(limit = INBOX_PAGE_SIZE) {
  return infiniteQueryOptions({
    queryKey: ['alerts', 'inbox', { limit }] as const,
    queryFn: ({ pageParam, signal }) => fetchInboxPage(pageParam, limit, signal),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next,
  });
}
