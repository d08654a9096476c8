import { queryOptions } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { keptAcrossSignOut } from '../../../lib/query-client';

export function fetchDemoAdminCode(signal?: AbortSignal) {
  return api('meta.demoAdminCode', { signal });
}

/** Demo mode only: asked for again as each code runs out, so the one shown is current. */
export function demoAdminCodeQueryOptions() {
  return queryOptions({
    queryKey: ['demoAdminCode'] as const,
    queryFn: ({ signal }) => fetchDemoAdminCode(signal),
    staleTime: 0,
    refetchInterval: (q) => (q.state.data ? q.state.data.secondsLeft * 1000 : false),
    meta: keptAcrossSignOut,
  });
}
