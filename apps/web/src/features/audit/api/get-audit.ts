import { infiniteQueryOptions } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import type { AuditListFilter } from '../audit-filter';

export function fetchAuditPage(
  filter: AuditListFilter,
  cursor: string | undefined,
  signal?: AbortSignal,
) {
  const { from, to, ...rest } = filter;
  return api('audit.list', {
    query: {
      ...rest,
      from: from === undefined ? undefined : String(from),
      to: to === undefined ? undefined : String(to),
      cursor,
    },
    signal,
  });
}

/** Newest first within the filter; "Load more" appends older records. */
export function auditQueryOptions(filter: AuditListFilter) {
  const key = {
    actor: filter.actor,
    action: filter.action,
    attempted: filter.attempted,
    outcome: filter.outcome,
    cardId: filter.cardId,
    from: filter.from,
    to: filter.to,
  };
  return infiniteQueryOptions({
    queryKey: ['audit', 'list', key] as const,
    queryFn: ({ pageParam, signal }) => fetchAuditPage(key, pageParam, signal),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor,
    // The trail grows while someone reads it; always show the latest when they come back.
    staleTime: 0,
  });
}
