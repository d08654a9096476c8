import type { Notes, NotesChange } from '@card-console/shared/api/notes';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { apiProblem } from '../../../lib/api-error';
import { indexListsKey } from './get-index-transactions';
import { notesQueryOptions } from './get-notes';

export function updateNotes(transactionId: string, body: NotesChange) {
  return api('notes.update', { params: { id: transactionId }, body });
}

/**
 * The notes as they are now when `error` is a 409 that refused a change made on older ones:
 * someone else changed them (`notes_changed`) or they are reviewed (`transaction_reviewed`).
 */
export function notesNow(error: unknown): Notes | undefined {
  return apiProblem(error, 'notes_changed', 'transaction_reviewed')?.current;
}

/**
 * Saves a change of the notes (or reviews or reopens them). The notes' entry takes what the
 * answer carries: the saved notes, or on a 409 the notes as they are now. Lists refetch, since
 * they show and filter by notes.
 */
export function useUpdateNotes(transactionId: string) {
  const queryClient = useQueryClient();
  const { queryKey } = notesQueryOptions(transactionId);
  return useMutation({
    mutationFn: (body: NotesChange) => updateNotes(transactionId, body),
    // The lists are asked again without waiting for them: the save is done when saved (Save and
    // next goes on at once).
    onSuccess: (saved) => {
      queryClient.setQueryData(queryKey, saved);
      void queryClient.invalidateQueries({ queryKey: indexListsKey });
    },
    onError: async (error) => {
      const current = notesNow(error);
      if (!current) return;
      queryClient.setQueryData(queryKey, current);
      await queryClient.invalidateQueries({ queryKey: indexListsKey });
    },
  });
}
