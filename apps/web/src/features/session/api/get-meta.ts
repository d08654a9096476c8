import { queryOptions } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { keptAcrossSignOut } from '../../../lib/query-client';

export function fetchMeta(signal?: AbortSignal) {
  return api('meta.get', { signal });
}

export function metaQueryOptions() {
  return queryOptions({
    queryKey: ['meta'] as const,
    queryFn: ({ signal }) => fetchMeta(signal),
    staleTime: Number.POSITIVE_INFINITY,
    meta: keptAcrossSignOut,
  });
}
