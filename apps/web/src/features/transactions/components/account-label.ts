import type { AccountingCategory } from '@card-console/shared/api/accounting-categories';
import { NO_ACCOUNT } from '../transactions-search';
import { categoryText } from './accounting-category-select';

/** An `account` filter value as a person reads it: "6100 Meals", "No category". */
export function accountLabel(id: string, categories: AccountingCategory[] | undefined): string {
  if (id === NO_ACCOUNT) return 'No category';
  // The chart is still on its way: the id stands in for a moment.
  if (!categories) return id;
  return categoryText(id, categories);
}
