import type { QueryClient, QueryKey, UseQueryOptions } from '@tanstack/react-query';
import { notFound } from '@tanstack/react-router';
import { isApiError } from './api-error';

/**
 * A detail route's loader: the data, or, when the BFF answers 404, the route's "not found"
 * screen (its notFoundComponent) instead of an error with a Retry that cannot help.
 */
export async function ensureOrNotFound<TData, TKey extends QueryKey>(
  queryClient: QueryClient,
  options: UseQueryOptions<TData, Error, TData, TKey> & { queryKey: TKey },
): Promise<void> {
  try {
    await queryClient.ensureQueryData(options);
  } catch (error) {
    if (isApiError(error) && error.status === 404) throw notFound();
    throw error;
  }
}
