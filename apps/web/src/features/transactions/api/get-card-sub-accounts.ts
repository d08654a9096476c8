import { queryOptions } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { STALE_MS } from '../../../lib/query-client';

/** Which sub accounts each card spends from (its transactions say), from the BFF's index. */
export function cardSubAccountsQueryOptions() {
  return queryOptions({
    queryKey: ['transactions', 'card-sub-accounts'] as const,
    queryFn: ({ signal }) => api('index.cardSubAccounts', { signal }),
    staleTime: STALE_MS,
  });
}
