import type { IndexQuery, IndexQueueQuery } from '@card-console/shared/api/transaction-index';
import { queryOptions } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { STALE_MS } from '../../../lib/query-client';
import { indexListsKey } from './get-index-transactions';

/** The list's query as the queue asks it: its filter and order, not its page. */
export function queueQuery(list: IndexQuery, transactionId: string): IndexQueueQuery {
  const { cursor: _cursor, limit: _limit, refresh: _refresh, ...filter } = list;
  return { ...filter, transactionId };
}

/** Only the row after it that still matches (Save and next), without the set's count. */
export function fetchQueueNext(query: IndexQueueQuery, signal?: AbortSignal) {
  return api('index.queueNext', { query, signal });
}

/**
 * Where a transaction stands in the list it was opened from (the review queue): "12 of
 * 1,131", the rows before and after it that match now, its merchant's last category. Under the
 * lists' key, so a change of notes asks for it again.
 */
export function queueQueryOptions(query: IndexQueueQuery) {
  return queryOptions({
    queryKey: [...indexListsKey, 'queue', query] as const,
    queryFn: ({ signal }) => api('index.queue', { query, signal }),
    staleTime: STALE_MS,
  });
}
