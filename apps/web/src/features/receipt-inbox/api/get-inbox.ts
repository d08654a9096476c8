import { queryOptions } from '@tanstack/react-query';
import { type AnswerOf, api } from '../../../lib/api-client';
import { indexListsKey } from '../../transactions/api/get-index-transactions';

export type InboxList = AnswerOf<'inbox.list'>;
export type InboxItem = InboxList['items'][number];

/** While any receipt is being read, the list is asked for again this often. */
export const READING_POLL_MS = 2_000;

export const inboxListKey = ['receipt-inbox', 'list'] as const;

const isReading = (list: InboxList | undefined) =>
  list !== undefined &&
  (list.counts.reading > 0 || list.items.some((item) => item.status === 'reading'));

const attachedIds = (list: InboxList | undefined) =>
  new Set(list?.items.filter((i) => i.status === 'attached').map((i) => i.id));

/**
 * The person's inbox, newest first. While a receipt is being read it is asked for every 2 s, as
 * a background request (a tab left open does not keep the session alive). A receipt attached
 * meanwhile (a certain match, by the BFF) changes the transaction lists and their "Missing
 * receipt" count, so those are asked for again too.
 */
export function inboxQueryOptions() {
  return queryOptions({
    queryKey: inboxListKey,
    queryFn: async ({ client, signal }) => {
      const before = client.getQueryData<InboxList>(inboxListKey);
      const list = await api('inbox.list', { signal, background: isReading(before) });
      if (before) {
        const known = attachedIds(before);
        if ([...attachedIds(list)].some((id) => !known.has(id))) {
          void client.invalidateQueries({ queryKey: indexListsKey });
        }
      }
      return list;
    },
    refetchInterval: (query) => (isReading(query.state.data) ? READING_POLL_MS : false),
  });
}

/** Receipts waiting on the person: suggested (to confirm) and waiting (to pick for). */
export function needsYouCount(list: InboxList | undefined): number {
  return list ? list.counts.suggested + list.counts.waiting : 0;
}
