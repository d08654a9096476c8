import type { MetaResponse } from '@card-console/shared/api/meta';
import { queryOptions } from '@tanstack/react-query';
import { apiJson } from '../../../lib/api-client';

export function fetchMeta(signal?: AbortSignal) {
  return apiJson<MetaResponse>('/api/meta', { signal });
}

export function metaQueryOptions() {
  return queryOptions({
    queryKey: ['meta'] as const,
    queryFn: ({ signal }) => fetchMeta(signal),
    staleTime: Number.POSITIVE_INFINITY,
  });
}
