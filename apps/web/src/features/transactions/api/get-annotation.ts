import { queryOptions } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

export function fetchAnnotation(transactionId: string, signal?: AbortSignal) {
  return api('notes.get', { params: { id: transactionId }, signal });
}

/** A transaction's notes: memo, accounting category, tags, review, and their version. */
export function annotationQueryOptions(transactionId: string) {
  return queryOptions({
    queryKey: ['transactions', 'annotation', transactionId] as const,
    queryFn: ({ signal }) => fetchAnnotation(transactionId, signal),
  });
}
