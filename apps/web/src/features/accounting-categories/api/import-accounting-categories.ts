import type { AccountingCategoryList } from '@card-console/shared/api/accounting-categories';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { accountingCategoriesQueryOptions } from './get-accounting-categories';

/** A chart of accounts as its CSV (QuickBooks', Xero's, or code,name): all of it, or nothing. */
export function importAccountingCategories(csv: string) {
  return api('accountingCategories.import', { body: csv });
}

/** Imports a chart; the answer carries the whole chart as it is now, which the list shows. */
export function useImportAccountingCategories() {
  const queryClient = useQueryClient();
  const { queryKey } = accountingCategoriesQueryOptions();
  return useMutation({
    mutationFn: importAccountingCategories,
    onSuccess: async (result) => {
      queryClient.setQueryData<AccountingCategoryList>(queryKey, { items: result.items });
      await queryClient.invalidateQueries({ queryKey });
    },
  });
}
