import { queryOptions } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

/** Whether everyone must have a second factor (admins always must). */
export function securityPolicyQueryOptions() {
  return queryOptions({
    queryKey: ['security-policy'] as const,
    queryFn: ({ signal }) => api('securityPolicy.get', { signal }),
  });
}
