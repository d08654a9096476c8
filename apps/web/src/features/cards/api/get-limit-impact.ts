import { queryOptions } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

/** The limits to compare the card's last 90 days against; one left out is the card's own. */
export interface ProposedLimits {
  minimumCents?: number | undefined;
  maximumCents?: number | undefined;
}

export function fetchLimitImpact(cardId: string, limits: ProposedLimits, signal?: AbortSignal) {
  const { minimumCents, maximumCents } = limits;
  return api('cards.limitImpact', {
    params: { id: cardId },
    query: {
      minimumCents: minimumCents === undefined ? undefined : String(minimumCents),
      maximumCents: maximumCents === undefined ? undefined : String(maximumCents),
    },
    signal,
  });
}

/** What new transaction-size limits would have done to the card's last 90 days (admins). */
export function limitImpactQueryOptions(cardId: string, limits: ProposedLimits) {
  return queryOptions({
    queryKey: [
      'cards',
      'limit-impact',
      cardId,
      { minimumCents: limits.minimumCents, maximumCents: limits.maximumCents },
    ] as const,
    queryFn: ({ signal }) => fetchLimitImpact(cardId, limits, signal),
  });
}
