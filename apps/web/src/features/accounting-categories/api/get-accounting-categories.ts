import type { AccountingCategory } from '@card-console/shared/api/accounting-categories';
import { queryOptions } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

export function fetchAccountingCategories(signal?: AbortSignal) {
  return api('accountingCategories.list', { signal });
}

/** The chart of accounts: every category, archived ones included, by code. */
export function accountingCategoriesQueryOptions() {
  return queryOptions({
    queryKey: ['accounting-categories', 'all'] as const,
    queryFn: ({ signal }) => fetchAccountingCategories(signal),
    select: (list): AccountingCategory[] => list.items,
  });
}
