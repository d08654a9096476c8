import { queryOptions } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

/** How often to ask again while the index is syncing the card's transactions. */
const SYNCING_POLL_MS = 1_000;

/** A card's money from the BFF's index: sub accounts, spend against its limit, latest rows. */
export function cardMoneyQueryOptions(cardId: string) {
  return queryOptions({
    queryKey: ['cards', 'money', cardId] as const,
    queryFn: ({ signal }) => api('index.card', { params: { id: cardId }, signal }),
    refetchInterval: (q) => (q.state.data?.freshness.syncing ? SYNCING_POLL_MS : false),
  });
}
