import type { Attention } from '@card-console/shared/api/transaction-index';
import { formatDate } from '../../lib/format';
import { filterCount, NO_ACCOUNT, type TransactionsSearch } from './transactions-search';

/** What the month close still needs, each a filter of the list (as GET /api/index/attention counts it). */
export const closePresets = [
  {
    key: 'unreviewed',
    label: 'Unreviewed',
    noun: 'not reviewed',
    filter: { review: 'unreviewed' },
  },
  {
    key: 'uncategorized',
    label: 'No category',
    noun: 'with no accounting category',
    filter: { account: [NO_ACCOUNT] },
  },
  { key: 'declined', label: 'Declined', noun: 'declined', filter: { status: ['declined'] } },
] as const satisfies readonly {
  key: keyof Omit<Attention, 'freshness'>;
  label: string;
  noun: string;
  filter: Partial<TransactionsSearch>;
}[];
export type ClosePreset = (typeof closePresets)[number];

/** The list of a preset: its filter alone, over the same days, every sub account, same order. */
export function presetSearch(search: TransactionsSearch, preset: ClosePreset): TransactionsSearch {
  return { ...datesAndOrder(search), ...preset.filter };
}

/** The search without filters: the days and the order kept. */
export function datesAndOrder(search: TransactionsSearch): TransactionsSearch {
  const { period, from, to, sort, dir, by } = search;
  return { period, from, to, sort, dir, by };
}

/** Is the list exactly the preset's (so its count is the preset's)? */
export function isPreset(search: TransactionsSearch, preset: ClosePreset): boolean {
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  return (
    search.subAccountId === undefined &&
    filterCount(search) === filterCount(presetSearch(search, preset)) &&
    Object.entries(preset.filter).every(([key, value]) =>
      same(search[key as keyof TransactionsSearch], value),
    )
  );
}

/** "from Oct 1, 2026 to Nov 26, 2026", "up to …", "from …", or "at any time". */
export function daysText(days: { from?: string | undefined; to?: string | undefined }): string {
  if (days.from && days.to) {
    return days.from === days.to
      ? `on ${formatDate(days.from)}`
      : `from ${formatDate(days.from)} to ${formatDate(days.to)}`;
  }
  if (days.from) return `from ${formatDate(days.from)}`;
  if (days.to) return `up to ${formatDate(days.to)}`;
  return 'at any time';
}
