import type { CardSubAccounts } from '@card-console/shared/api/transaction-index';
import { queryOptions } from '@tanstack/react-query';
import { apiJson } from '../../../lib/api-client';
import { STALE_MS } from '../../../lib/query-client';

/** Which sub accounts each card spends from (its transactions say), from the BFF's index. */
export function cardSubAccountsQueryOptions() {
  return queryOptions({
    queryKey: ['transactions', 'card-sub-accounts'] as const,
    queryFn: ({ signal }) => apiJson<CardSubAccounts>('/api/index/card-sub-accounts', { signal }),
    staleTime: STALE_MS,
  });
}
