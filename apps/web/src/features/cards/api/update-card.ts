import type { CardPatchBody, CardValues } from '@card-console/shared/api/cards';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { apiProblem } from '../../../lib/api-error';
import { cardWithValues } from '../limit-form';
import { cardQueryOptions } from './get-card';
import { cardListsKey } from './get-cards';

export function updateCard(cardId: string, body: CardPatchBody) {
  return api('cards.update', { params: { id: cardId }, body });
}

/** The card's values now when `error` is a 409 `card_changed` (someone else saved first). */
export function cardChangedValues(error: unknown): CardValues | undefined {
  return apiProblem(error, 'card_changed')?.current;
}

/**
 * Saves a change and shows it at once: the card's own entry is replaced, lists refetch. When
 * someone else saved first (409 `card_changed`), the card's entry takes the current values the
 * answer carries, so the screen shows what is really on the card.
 */
export function useUpdateCard(cardId: string) {
  const queryClient = useQueryClient();
  const { queryKey } = cardQueryOptions(cardId);
  return useMutation({
    mutationFn: (body: CardPatchBody) => updateCard(cardId, body),
    onSuccess: async (card) => {
      queryClient.setQueryData(queryKey, card);
      await queryClient.invalidateQueries({ queryKey: cardListsKey });
    },
    onError: async (error) => {
      const current = cardChangedValues(error);
      if (!current) return;
      queryClient.setQueryData(queryKey, (card) => card && cardWithValues(card, current));
      await queryClient.invalidateQueries({ queryKey: cardListsKey });
    },
  });
}
