import type { SubAccount } from '@card-console/shared/api/sub-accounts';
import { queryOptions } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

/** A program has a handful of sub accounts; more than this many pages means something is off. */
const MAX_PAGES = 50;

export function fetchSubAccountsPage(cursor?: string, signal?: AbortSignal) {
  return api('subAccounts.list', { query: { cursor }, signal });
}

/** Every sub account, following the cursor, so totals are over all of them. */
export async function fetchAllSubAccounts(signal?: AbortSignal): Promise<SubAccount[]> {
  const items: SubAccount[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await fetchSubAccountsPage(cursor, signal);
    items.push(...result.items);
    if (!result.nextCursor) break;
    cursor = result.nextCursor;
  }
  return items;
}

export function subAccountsQueryOptions() {
  return queryOptions({
    queryKey: ['sub-accounts', 'all'] as const,
    queryFn: ({ signal }) => fetchAllSubAccounts(signal),
  });
}
