import { queryOptions } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

/**
 * Every owner and team given to a card, with how many cards each has (Card Console's own, not
 * the card service's): the Cards and Transactions filters' choices, the owner form's suggestions.
 * Not under `['cards']`: that key's entries are cards (`use-card-choices.ts` reads them so).
 */
export function cardOwnersQueryOptions() {
  return queryOptions({
    queryKey: ['card-owners'] as const,
    queryFn: ({ signal }) => api('cards.owners', { signal }),
  });
}
