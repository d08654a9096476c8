import type { Card, CardPage } from '@card-console/shared/api/cards';
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

/** Enough for a program's cards in a filter; past this the filter shows ids. */
const MAX_CHOICE_PAGES = 10;

/** Cards by name for pickers and labels: every page, up to a cap. */
export async function fetchCardChoices(signal?: AbortSignal): Promise<Card[]> {
  const cards: Card[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_CHOICE_PAGES; page++) {
    const result = await fetchCards({ sort: 'name', direction: 'asc', cursor }, signal);
    cards.push(...result.items);
    if (!result.nextCursor) break;
    cursor = result.nextCursor;
  }
  return cards;
}

export function cardChoicesQueryOptions() {
  return queryOptions({
    // Under the list key, so a renamed card refreshes the choices too.
    queryKey: [...cardListsKey, 'choices'] as const,
    queryFn: ({ signal }) => fetchCardChoices(signal),
    staleTime: 5 * 60_000,
  });
}
