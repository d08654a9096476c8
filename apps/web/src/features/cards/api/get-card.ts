import type { Card } from '@card-console/shared/api/cards';
import { queryOptions } from '@tanstack/react-query';
import { apiJson } from '../../../lib/api-client';

export function fetchCard(cardId: string, signal?: AbortSignal) {
  return apiJson<Card>(`/api/cards/${encodeURIComponent(cardId)}`, { signal });
}

export function cardQueryOptions(cardId: string) {
  return queryOptions({
    queryKey: ['cards', 'detail', cardId] as const,
    queryFn: ({ signal }) => fetchCard(cardId, signal),
  });
}
