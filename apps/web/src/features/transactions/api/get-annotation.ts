import type { Annotation } from '@card-console/shared/api/annotations';
import { queryOptions } from '@tanstack/react-query';
import { apiJson } from '../../../lib/api-client';

export function fetchAnnotation(transactionId: string, signal?: AbortSignal) {
  return apiJson<Annotation>(`/api/transactions/${encodeURIComponent(transactionId)}/annotation`, {
    signal,
  });
}

/** A transaction's notes: memo, accounting category, tags, review, and their version. */
export function annotationQueryOptions(transactionId: string) {
  return queryOptions({
    queryKey: ['transactions', 'annotation', transactionId] as const,
    queryFn: ({ signal }) => fetchAnnotation(transactionId, signal),
  });
}
