import type { Card, CardPage } from '@card-console/shared/api/cards';
import type { CardListSort } from '@card-console/shared/index-vocabulary';
import type { CardStatus } from '@card-console/shared/upstream/card';
import { infiniteQueryOptions, queryOptions } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { STALE_MS } from '../../../lib/query-client';

export interface CardListParams {
  /** Part of a name or of the last four: the BFF answers from every card, not a page of them. */
  q?: string | undefined;
  status?: CardStatus | undefined;
  sort?: CardListSort | undefined;
  direction?: 'asc' | 'desc' | undefined;
  /** The cards of this owner, or of this team, by name in any case (Card Console's own). */
  owner?: string | undefined;
  team?: string | undefined;
  cursor?: string | undefined;
}

/** Every card list page lives under this key; a card change invalidates all of them. */
export const cardListsKey = ['cards', 'list'] as const;

export function fetchCards(params: CardListParams, signal?: AbortSignal) {
  return api('cards.list', { query: params, signal });
}

/** The cards list from its first page, which "Load more" extends a page at a time. */
export function cardPagesQueryOptions(params: Omit<CardListParams, 'cursor'>) {
  const key = {
    q: params.q,
    status: params.status,
    sort: params.sort,
    direction: params.direction,
    owner: params.owner,
    team: params.team,
  };
  return infiniteQueryOptions({
    queryKey: [...cardListsKey, 'pages', key] as const,
    queryFn: ({ pageParam, signal }) => fetchCards({ ...key, cursor: pageParam }, signal),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last: CardPage) => last.nextCursor,
    // As Transactions: a grown list is not walked again by itself.
    staleTime: (query) => ((query.state.data?.pages.length ?? 0) > 1 ? Infinity : STALE_MS),
  });
}

/**
 * The cards that spend from a sub account, from the BFF's index (all in one answer), under the
 * cards lists' key so a card change refreshes it too.
 */
export function subAccountCardsQueryOptions(
  params: Omit<CardListParams, 'cursor'> & { subAccountId: string },
) {
  const key = {
    subAccountId: params.subAccountId,
    q: params.q,
    status: params.status,
    sort: params.sort,
    direction: params.direction,
    owner: params.owner,
    team: params.team,
  };
  return queryOptions({
    queryKey: [...cardListsKey, 'sub-account', key] as const,
    queryFn: ({ signal }) => api('index.cards', { query: key, signal }),
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
