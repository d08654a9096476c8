import type { Overview, OverviewQuery } from '@card-console/shared/api/insights';
import { queryOptions } from '@tanstack/react-query';
import { apiJson } from '../../../lib/api-client';

/** How often to ask again while the BFF is still reading a period for the first time. */
export const COMPUTING_POLL_MS = 1_000;

export function overviewQueryOptions(query: OverviewQuery) {
  const key = { subAccountId: query.subAccountId, from: query.from, to: query.to, tz: query.tz };
  return queryOptions({
    queryKey: ['insights', 'overview', key] as const,
    queryFn: ({ signal }) => apiJson<Overview>('/api/insights/overview', { query: key, signal }),
    refetchInterval: (q) => (q.state.data?.status === 'computing' ? COMPUTING_POLL_MS : false),
  });
}
