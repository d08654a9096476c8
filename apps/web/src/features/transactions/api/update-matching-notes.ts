import type { NotesMatchingChange } from '@card-console/shared/api/notes-matching';
import type { IndexFilterQuery, IndexQuery } from '@card-console/shared/api/transaction-index';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { indexListsKey } from './get-index-transactions';

/** The list's query as a change of every matching row names it: its filter, not its order. */
export function matchingFilter(query: IndexQuery): IndexFilterQuery {
  const {
    cursor: _cursor,
    limit: _limit,
    refresh: _refresh,
    sort: _sort,
    direction: _direction,
    ...filter
  } = query;
  return filter;
}

/**
 * One change of every transaction the filter gives (or, with `preview`, what it would do). After
 * a change, the lists and every transaction's notes are asked for again.
 */
export function useUpdateMatchingNotes() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: NotesMatchingChange) => api('notes.updateMatching', { body }),
    onSettled: async (_result, _error, body) => {
      if (body.preview) return;
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: indexListsKey }),
        queryClient.invalidateQueries({ queryKey: ['transactions', 'notes'] }),
      ]);
    },
  });
}
