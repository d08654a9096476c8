import type { AuditPage } from '@card-console/shared/api/audit';
import { infiniteQueryOptions } from '@tanstack/react-query';
import { apiJson } from '../../../lib/api-client';

export function fetchAuditPage(cursor: string | undefined, signal?: AbortSignal) {
  return apiJson<AuditPage>('/api/audit', { query: { cursor }, signal });
}

/** Newest first; "Load more" appends older records. */
export function auditQueryOptions() {
  return infiniteQueryOptions({
    queryKey: ['audit', 'list'] as const,
    queryFn: ({ pageParam, signal }) => fetchAuditPage(pageParam, signal),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor,
    // The trail grows while someone reads it; always show the latest when they come back.
    staleTime: 0,
  });
}
