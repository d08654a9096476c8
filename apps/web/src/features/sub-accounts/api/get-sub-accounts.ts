import type { SubAccount } from '@card-console/shared/api/sub-accounts';
import { queryOptions } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

/**
 * The most pages of sub accounts read: the BFF's own bound on reading the whole list (its
 * `WALK_LIMITS.subAccounts`, which the Overview's balance and card spend of every sub account
 * are read under), so the Sub accounts screen's totals and the Overview's are of the same list.
 */
const MAX_PAGES = 400;

export function fetchSubAccountsPage(cursor?: string, signal?: AbortSignal) {
  return api('subAccounts.list', { query: { cursor }, signal });
}

/**
 * Every sub account, following the cursor, so totals are over all of them. A list that goes on
 * past `MAX_PAGES` is an error saying so: the pages read are not every sub account, and a total
 * of them would be a wrong figure, not a smaller one.
 */
export async function fetchAllSubAccounts(signal?: AbortSignal): Promise<SubAccount[]> {
  const items: SubAccount[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await fetchSubAccountsPage(cursor, signal);
    items.push(...result.items);
    if (!result.nextCursor) return items;
    cursor = result.nextCursor;
  }
  throw new Error(
    `The card service listed sub accounts past ${MAX_PAGES.toLocaleString('en-US')} pages, more than Card Console reads at once, so it stopped there.`,
  );
}

export function subAccountsQueryOptions() {
  return queryOptions({
    queryKey: ['sub-accounts', 'all'] as const,
    queryFn: ({ signal }) => fetchAllSubAccounts(signal),
  });
}
