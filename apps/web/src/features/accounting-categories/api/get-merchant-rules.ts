import type { MerchantRule } from '@card-console/shared/api/accounting-categories';
import { queryOptions } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

export function fetchMerchantRules(signal?: AbortSignal) {
  return api('merchantRules.list', { signal });
}

/** The merchant rules: which merchant's new transactions are booked to which category. */
export function merchantRulesQueryOptions() {
  return queryOptions({
    queryKey: ['accounting-categories', 'merchant-rules'] as const,
    queryFn: ({ signal }) => fetchMerchantRules(signal),
    select: (list): MerchantRule[] => list.items,
  });
}

/** The rule for `merchant`, compared as the BFF does (any case). */
export function ruleFor(rules: readonly MerchantRule[], merchant: string) {
  const key = merchant.trim().toLocaleLowerCase('en');
  return rules.find((r) => r.merchant.toLocaleLowerCase('en') === key);
}
