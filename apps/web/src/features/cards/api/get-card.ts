import { queryOptions } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

export function fetchCard(cardId: string, signal?: AbortSignal) {
  return api('cards.get', { params: { id: cardId }, signal });
}

export function cardQueryOptions(cardId: string) {
  return queryOptions({
    queryKey: ['cards', 'detail', cardId] as const,
    queryFn: ({ signal }) => fetchCard(cardId, signal),
  });
}
