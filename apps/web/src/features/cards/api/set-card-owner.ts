import type { CardOwnership, CardOwnershipChange } from '@card-console/shared/api/card-owners';
import type { Card } from '@card-console/shared/api/cards';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { cardQueryOptions } from './get-card';
import { cardOwnersQueryOptions } from './get-card-owners';
import { cardListsKey } from './get-cards';

export function setCardOwner(cardId: string, body: CardOwnershipChange) {
  return api('cards.setOwner', { params: { id: cardId }, body });
}

/** The card with the owner and team the answer gives it (either left out when it has none). */
export function cardWithOwnership(card: Card, ownership: CardOwnership): Card {
  const { owner: _owner, team: _team, ...rest } = card;
  return {
    ...rest,
    ...(ownership.owner ? { owner: ownership.owner } : {}),
    ...(ownership.team === undefined ? {} : { team: ownership.team }),
  };
}

/**
 * Gives a card its owner and team, or takes them off (`{ owner: null, team: null }`): the card
 * shows the answer at once, then it, the cards lists, the owners and teams, and the index's lists
 * and totals (filtered or totalled by owner) are read again.
 */
export function useSetCardOwner(cardId: string) {
  const queryClient = useQueryClient();
  const { queryKey } = cardQueryOptions(cardId);
  return useMutation({
    mutationFn: (body: CardOwnershipChange) => setCardOwner(cardId, body),
    onSuccess: async (ownership) => {
      queryClient.setQueryData(queryKey, (card) => card && cardWithOwnership(card, ownership));
      await Promise.all([
        queryClient.invalidateQueries({ queryKey }),
        queryClient.invalidateQueries({ queryKey: cardListsKey }),
        queryClient.invalidateQueries({ queryKey: cardOwnersQueryOptions().queryKey }),
        queryClient.invalidateQueries({ queryKey: ['transactions', 'index'] }),
      ]);
    },
  });
}
