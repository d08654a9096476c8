import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { type AnswerOf, api } from '../../../lib/api-client';

export type InboxAddress = AnswerOf<'inbox.address'>;

export function fetchInboxAddress(signal?: AbortSignal) {
  return api('inbox.address', { signal });
}

/** The person's private forwarding address, or that the operator has not set up mail. */
export function inboxAddressQueryOptions() {
  return queryOptions({
    queryKey: ['receipt-inbox', 'address'] as const,
    queryFn: ({ signal }) => fetchInboxAddress(signal),
  });
}

/** A new address replaces the old one, whose mail is refused from now on. */
export function useRotateAddress() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api('inbox.rotateAddress'),
    onSuccess: (address) => queryClient.setQueryData(inboxAddressQueryOptions().queryKey, address),
  });
}
