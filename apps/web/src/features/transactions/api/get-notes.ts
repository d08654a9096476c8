import { queryOptions } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

export function fetchNotes(transactionId: string, signal?: AbortSignal) {
  return api('notes.get', { params: { id: transactionId }, signal });
}

/** A transaction's notes: memo, accounting category, tags, review, and their version. */
export function notesQueryOptions(transactionId: string) {
  return queryOptions({
    queryKey: ['transactions', 'notes', transactionId] as const,
    queryFn: ({ signal }) => fetchNotes(transactionId, signal),
  });
}
