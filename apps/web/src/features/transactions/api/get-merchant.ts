import { queryOptions } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

/** The merchant a merchant text names, and every text of it the index holds. */
export function merchantQueryOptions(descriptor: string) {
  return queryOptions({
    queryKey: ['transactions', 'merchant', descriptor] as const,
    queryFn: ({ signal }) => api('index.merchant', { query: { descriptor }, signal }),
    staleTime: 60_000,
  });
}
