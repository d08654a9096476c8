import type { AccountingCategoryPatch } from '@card-console/shared/api/accounting-categories';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { accountingCategoriesQueryOptions } from './get-accounting-categories';

export function updateAccountingCategory(id: string, body: AccountingCategoryPatch) {
  return api('accountingCategories.update', { params: { id }, body });
}

/** Rename, recode, archive or restore one category; the list is asked for again. */
export function useUpdateAccountingCategory(id: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: AccountingCategoryPatch) => updateAccountingCategory(id, body),
    onSuccess: () =>
      queryClient.invalidateQueries({ queryKey: accountingCategoriesQueryOptions().queryKey }),
  });
}
