import { queryOptions } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

export function fetchSecondFactors(signal?: AbortSignal) {
  return api('security.secondFactors', { signal });
}

/** The signed-in admin's passkeys and TOTP setting (the key has no inputs: it is "mine"). */
export function secondFactorsQueryOptions() {
  return queryOptions({
    queryKey: ['second-factors'] as const,
    queryFn: ({ signal }) => fetchSecondFactors(signal),
  });
}
