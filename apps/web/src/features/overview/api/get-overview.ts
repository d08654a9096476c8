import type { OverviewQuery } from '@card-console/shared/api/overview';
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

/** How often to ask again while the BFF is still reading a period for the first time. */
export const COMPUTING_POLL_MS = 1_000;

export function getOverview(query: OverviewQuery, signal?: AbortSignal) {
  return api('overview.get', { query, signal });
}

/** The query's period: what the overview is cached by (never `refresh`). */
const periodOf = (query: OverviewQuery) => ({
  subAccountId: query.subAccountId,
  from: query.from,
  to: query.to,
  tz: query.tz,
});

export function overviewQueryOptions(query: OverviewQuery) {
  const key = periodOf(query);
  return queryOptions({
    queryKey: ['overview', key] as const,
    queryFn: ({ signal }) => getOverview(key, signal),
    refetchInterval: (q) => (q.state.data?.status === 'computing' ? COMPUTING_POLL_MS : false),
  });
}

/**
 * Asks the BFF to read the period's still-changing days again now, however recently it read
 * them, and puts the answer where the period's overview is cached: one entry per period, not
 * a second one for "refreshed".
 */
export function useRefreshOverview() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (query: OverviewQuery) => {
      // A poll under way would land after this answer with what was read before it.
      await queryClient.cancelQueries({ queryKey: overviewQueryOptions(query).queryKey });
      return getOverview({ ...periodOf(query), refresh: '1' });
    },
    onSuccess: (overview, query) =>
      queryClient.setQueryData(overviewQueryOptions(query).queryKey, overview),
  });
}
