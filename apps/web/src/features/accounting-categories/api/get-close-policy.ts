import { queryOptions } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

export function fetchClosePolicy(signal?: AbortSignal) {
  return api('closePolicy.get', { signal });
}

/**
 * The close policy: receipts needed from an amount (or none), the categories needing a memo, and
 * its `version` (0 while it is the default), which a change sends back.
 */
export function closePolicyQueryOptions() {
  return queryOptions({
    queryKey: ['close-policy'] as const,
    queryFn: ({ signal }) => fetchClosePolicy(signal),
  });
}
