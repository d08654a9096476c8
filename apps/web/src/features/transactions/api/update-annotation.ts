import type { Annotation, AnnotationChange } from '@card-console/shared/api/annotations';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { apiProblem } from '../../../lib/api-error';
import { annotationQueryOptions } from './get-annotation';
import { indexListsKey } from './get-index-transactions';

export function updateAnnotation(transactionId: string, body: AnnotationChange) {
  return api('notes.update', { params: { id: transactionId }, body });
}

/**
 * The notes as they are now when `error` is a 409 that refused a change made on older ones:
 * someone else changed them (`annotation_changed`) or they are reviewed (`transaction_reviewed`).
 */
export function annotationNow(error: unknown): Annotation | undefined {
  return apiProblem(error, 'annotation_changed', 'transaction_reviewed')?.current;
}

/**
 * Saves a change of the notes (or reviews or reopens them). The notes' entry takes what the
 * answer carries: the saved notes, or on a 409 the notes as they are now. Lists refetch, since
 * they show and filter by notes.
 */
export function useUpdateAnnotation(transactionId: string) {
  const queryClient = useQueryClient();
  const { queryKey } = annotationQueryOptions(transactionId);
  return useMutation({
    mutationFn: (body: AnnotationChange) => updateAnnotation(transactionId, body),
    onSuccess: async (saved) => {
      queryClient.setQueryData(queryKey, saved);
      await queryClient.invalidateQueries({ queryKey: indexListsKey });
    },
    onError: async (error) => {
      const current = annotationNow(error);
      if (!current) return;
      queryClient.setQueryData(queryKey, current);
      await queryClient.invalidateQueries({ queryKey: indexListsKey });
    },
  });
}
