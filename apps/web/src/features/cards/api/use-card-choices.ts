import type { Card, CardPage } from '@card-console/shared/api/cards';
import {
  type InfiniteData,
  type QueryClient,
  useQueries,
  useQuery,
  useQueryClient,
} from '@tanstack/react-query';
import { useState } from 'react';
import { cardQueryOptions } from './get-card';
import { cardChoicesQueryOptions } from './get-cards';

/** The cards a card filter offers, loaded only once someone opens it. */
export interface CardChoices {
  /** Every card once loaded; until then, only the cards this tab already knows. */
  cards: Card[];
  /** 'idle' until the filter is opened; the list is complete only when 'ready'. */
  state: 'idle' | 'loading' | 'ready' | 'error';
  /** Starts loading the full list (the filter was focused or pressed). */
  load: () => void;
}

/**
 * Card choices for a screen whose own list is something else (Transactions). Walking every
 * card page costs one upstream call per 25 cards, so it waits until the card filter is
 * opened; a screen filtered by cards asks for just those (a link with two showed the second
 * as its id). Names of cards already in this tab's cache (the Cards screen, a card's page) are
 * used meanwhile, at no cost.
 */
export function useCardChoices(
  selectedCardIds: string | readonly string[] | undefined,
): CardChoices {
  const [wanted, setWanted] = useState(false);
  const queryClient = useQueryClient();
  const all = useQuery({ ...cardChoicesQueryOptions(), enabled: wanted });
  const ids =
    selectedCardIds === undefined
      ? []
      : typeof selectedCardIds === 'string'
        ? [selectedCardIds]
        : selectedCardIds;
  const selected = useQueries({
    queries: ids.map((id) => ({
      ...cardQueryOptions(id),
      enabled: all.data === undefined,
    })),
  });
  if (all.data) return { cards: all.data, state: 'ready', load: () => undefined };
  return {
    cards: knownCards(
      queryClient,
      selected.flatMap((s) => (s.data ? [s.data] : [])),
    ),
    state: all.isError ? 'error' : wanted ? 'loading' : 'idle',
    load: () => {
      if (all.isError) void all.refetch();
      setWanted(true);
    },
  };
}

/** Every card in the query cache (list pages, choices, single cards), once each. */
function knownCards(queryClient: QueryClient, extra: readonly Card[]): Card[] {
  const byId = new Map<string, Card>();
  const add = (card: Card) => byId.set(card.id, card);
  for (const [, data] of queryClient.getQueriesData<
    CardPage | InfiniteData<CardPage> | Card[] | Card
  >({
    queryKey: ['cards'],
  })) {
    if (!data) continue;
    if (Array.isArray(data)) data.forEach(add);
    else if ('items' in data) data.items.forEach(add);
    else if ('pages' in data) for (const page of data.pages) page.items.forEach(add);
    else add(data);
  }
  extra.forEach(add);
  return [...byId.values()];
}
