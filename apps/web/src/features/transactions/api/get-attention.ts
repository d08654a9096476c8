import { queryOptions } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { STALE_MS } from '../../../lib/query-client';
import { indexListsKey, SYNCING_POLL_MS } from './get-index-transactions';

/** A period as Unix ms, both ends included; an absent end is open. */
export interface AttentionQuery {
  from?: string | undefined;
  to?: string | undefined;
}

export function fetchAttention(query: AttentionQuery, signal?: AbortSignal) {
  return api('index.attention', { query, signal });
}

/**
 * What the month close still needs over a period, every sub account: the unreviewed, the
 * uncategorised and the declined (each the list's own filter). Under the index's key, so a
 * change of notes and a Refresh ask for it again along with the lists.
 */
export function attentionQueryOptions(query: AttentionQuery) {
  const asked = Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined));
  return queryOptions({
    queryKey: [...indexListsKey, 'attention', asked] as const,
    queryFn: ({ signal }) => fetchAttention(asked, signal),
    staleTime: STALE_MS,
    // While a sync reads the period, the counts grow: asked for again until it is done.
    refetchInterval: (q) => (q.state.data?.freshness.syncing ? 2 * SYNCING_POLL_MS : false),
  });
}
