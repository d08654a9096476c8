import { queryOptions } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

export function fetchSession(options: { background?: boolean; signal?: AbortSignal } = {}) {
  return api('session.get', options);
}

export function sessionQueryOptions() {
  return queryOptions({
    queryKey: ['session'] as const,
    queryFn: ({ signal }) => fetchSession({ signal }),
    staleTime: 60_000,
    retry: false,
  });
}
