import type { BulkNotesChange, BulkNotesResult } from '@card-console/shared/api/notes';
import { BULK_NOTES_MAX } from '@card-console/shared/api/notes-rules';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { indexListsKey } from './get-index-transactions';
import { notesQueryOptions } from './get-notes';

/** At most this many transactions in one request (from the zod-free shared module). */
export { BULK_NOTES_MAX };

export type BulkNotesItem = BulkNotesChange['items'][number];
/** The change, without the transactions it applies to. */
export type BulkNotesAction = Omit<BulkNotesChange, 'items'>;

export function sendBulkNotes(body: BulkNotesChange) {
  return api('notes.updateMany', { body });
}

/**
 * One change to every transaction of `items`, sent BULK_NOTES_MAX at a time (one after the
 * other: each request's rows are the BFF's, as they are then). The answers add up into one.
 */
export async function updateManyNotes(
  items: readonly BulkNotesItem[],
  action: BulkNotesAction,
): Promise<BulkNotesResult> {
  const result: BulkNotesResult = { changed: [], skipped: [] };
  for (let start = 0; start < items.length; start += BULK_NOTES_MAX) {
    const part = await sendBulkNotes({
      ...action,
      items: items.slice(start, start + BULK_NOTES_MAX),
    });
    result.changed.push(...part.changed);
    result.skipped.push(...part.skipped);
  }
  return result;
}

/**
 * The selection's change. Each changed transaction's notes take what the answer carries; the
 * lists and what the month close still needs are asked for again (also after a failure part
 * way: earlier requests may have changed rows).
 */
export function useUpdateManyNotes() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ items, action }: { items: readonly BulkNotesItem[]; action: BulkNotesAction }) =>
      updateManyNotes(items, action),
    onSuccess: (result) => {
      for (const notes of result.changed) {
        queryClient.setQueryData(notesQueryOptions(notes.transactionId).queryKey, notes);
      }
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: indexListsKey }),
  });
}
