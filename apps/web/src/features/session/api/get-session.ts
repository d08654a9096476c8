import type { SessionResponse } from '@card-console/shared/api/session';
import { queryOptions } from '@tanstack/react-query';
import { apiJson } from '../../../lib/api-client';

export function fetchSession(options: { background?: boolean; signal?: AbortSignal } = {}) {
  return apiJson<SessionResponse>('/api/session', options);
}

export function sessionQueryOptions() {
  return queryOptions({
    queryKey: ['session'] as const,
    queryFn: ({ signal }) => fetchSession({ signal }),
    staleTime: 60_000,
    retry: false,
  });
}
