import type { AccountingCategoryCreate } from '@card-console/shared/api/accounting-categories';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { accountingCategoriesQueryOptions } from './get-accounting-categories';

export function createAccountingCategory(body: AccountingCategoryCreate) {
  return api('accountingCategories.create', { body });
}

export function useCreateAccountingCategory() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createAccountingCategory,
    onSuccess: () =>
      queryClient.invalidateQueries({ queryKey: accountingCategoriesQueryOptions().queryKey }),
  });
}
