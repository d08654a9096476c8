import type { Card, CardPatchBody } from '@card-console/shared/api/cards';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiJson } from '../../../lib/api-client';
import { cardQueryOptions } from './get-card';
import { cardListsKey } from './get-cards';

export function updateCard(cardId: string, body: CardPatchBody) {
  return apiJson<Card>(`/api/cards/${encodeURIComponent(cardId)}`, {
    method: 'PATCH',
    body,
  });
}

/** Saves a change and shows it at once: the card's own entry is replaced, lists refetch. */
export function useUpdateCard(cardId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: CardPatchBody) => updateCard(cardId, body),
    onSuccess: async (card) => {
      queryClient.setQueryData(cardQueryOptions(cardId).queryKey, card);
      await queryClient.invalidateQueries({ queryKey: cardListsKey });
    },
  });
}
