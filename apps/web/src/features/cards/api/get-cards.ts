import type { CardPage } from '@card-console/shared/api/cards';
import type { CardStatus } from '@card-console/shared/upstream/card';
import { queryOptions } from '@tanstack/react-query';
import { apiJson } from '../../../lib/api-client';

export interface CardListParams {
  status?: CardStatus | undefined;
  sort?: 'createdAt' | 'name' | undefined;
  direction?: 'asc' | 'desc' | undefined;
  cursor?: string | undefined;
}

/** Every card list page lives under this key; a card change invalidates all of them. */
export const cardListsKey = ['cards', 'list'] as const;

export function fetchCards(params: CardListParams, signal?: AbortSignal) {
  return apiJson<CardPage>('/api/cards', { query: { ...params }, signal });
}

export function cardsQueryOptions(params: CardListParams) {
  const key = {
    status: params.status,
    sort: params.sort,
    direction: params.direction,
    cursor: params.cursor,
  };
  return queryOptions({
    queryKey: [...cardListsKey, key] as const,
    queryFn: ({ signal }) => fetchCards(key, signal),
  });
}
