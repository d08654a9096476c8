import { CARD_MONEY_MAX } from '@card-console/shared/index-vocabulary';
import { queryOptions } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

/** How often to ask again while the index is syncing. */
const SYNCING_POLL_MS = 1_000;

/** The cards a list shows, in batches the BFF answers at once. */
export function cardBatches(cardIds: readonly string[]): string[][] {
  const batches: string[][] = [];
  for (let at = 0; at < cardIds.length; at += CARD_MONEY_MAX) {
    batches.push(cardIds.slice(at, at + CARD_MONEY_MAX));
  }
  return batches;
}

/** The cards list's money from the BFF's index: each card's sub accounts and spend. */
export function cardsMoneyQueryOptions(cardIds: string[]) {
  return queryOptions({
    queryKey: ['cards', 'money-list', cardIds] as const,
    queryFn: ({ signal }) => api('index.cardMoney', { query: { cardId: cardIds }, signal }),
    refetchInterval: (q) => (q.state.data?.freshness.syncing ? SYNCING_POLL_MS : false),
  });
}
