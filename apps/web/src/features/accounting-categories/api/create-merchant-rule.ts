import type { MerchantRuleCreate } from '@card-console/shared/api/accounting-categories';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { merchantRulesQueryOptions } from './get-merchant-rules';

export function createMerchantRule(body: MerchantRuleCreate) {
  return api('merchantRules.create', { body });
}

/** Books a merchant's new transactions to a category; 409 `merchant_rule_exists` if it has a rule. */
export function useCreateMerchantRule() {
  const queryClient = useQueryClient();
  const { queryKey } = merchantRulesQueryOptions();
  return useMutation({
    mutationFn: createMerchantRule,
    onSettled: () => queryClient.invalidateQueries({ queryKey }),
  });
}
