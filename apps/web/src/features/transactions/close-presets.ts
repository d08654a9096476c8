import type { Attention } from '@card-console/shared/api/transaction-index';
import { SPEND_STATUSES } from '@card-console/shared/index-vocabulary';
import { centsToDollarInput, formatCents } from '@card-console/shared/money';
import { transactionStatuses } from '@card-console/shared/upstream/enums';
import { formatDate } from '../../lib/format';
import {
  dollarsToCents,
  filterCount,
  NO_ACCOUNT,
  type TransactionsSearch,
} from './transactions-search';

/**
 * The BFF's RECEIPT_FROM_CENTS_DEFAULT ($75), for a click before the counts arrive (which say
 * the figure in use); not imported, so its module's zod schemas stay out of this chunk.
 */
const RECEIPT_FROM_CENTS_FALLBACK = 7_500;
const spend = transactionStatuses.filter((s) => (SPEND_STATUSES as readonly string[]).includes(s));

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
  {
    // Spend from a size up (the counts' `fromCents`: the `min` added by `presetFilter`).
    key: 'missingReceipt',
    label: 'Missing receipt',
    noun: 'with no receipt',
    filter: { status: spend, receipt: 'missing' },
  },
  { key: 'declined', label: 'Declined', noun: 'declined', filter: { status: ['declined'] } },
] as const satisfies readonly {
  key: keyof Omit<Attention, 'freshness'>;
  label: string;
  noun: string;
  filter: Partial<TransactionsSearch>;
}[];
export type ClosePreset = (typeof closePresets)[number];

/** From what size spend needs a receipt: as the counts say, or the BFF's default. */
function receiptFromCents(attention: Attention | undefined): number {
  return attention?.missingReceipt.fromCents ?? RECEIPT_FROM_CENTS_FALLBACK;
}

/** A preset's filter; "Missing receipt" adds its smallest amount, from the counts. */
export function presetFilter(
  preset: ClosePreset,
  attention: Attention | undefined,
): Partial<TransactionsSearch> {
  if (preset.key !== 'missingReceipt') return preset.filter;
  const from = receiptFromCents(attention);
  return {
    ...preset.filter,
    status: [...spend],
    min: from > 0 ? centsToDollarInput(from) : undefined,
  };
}

/** "not reviewed"; "of $75.00 or more (money moved) with no receipt". */
export function presetNoun(preset: ClosePreset, attention: Attention | undefined): string {
  if (preset.key !== 'missingReceipt') return preset.noun;
  const from = receiptFromCents(attention);
  return from > 0
    ? `of ${formatCents(from)} or more spent with no receipt`
    : 'spent with no receipt';
}

/** The list of a preset: its filter alone, over the same days, every sub account, same order. */
export function presetSearch(
  search: TransactionsSearch,
  preset: ClosePreset,
  attention: Attention | undefined,
): TransactionsSearch {
  return { ...datesAndOrder(search), ...presetFilter(preset, attention) };
}

/** The search without filters: the days and the order kept. */
export function datesAndOrder(search: TransactionsSearch): TransactionsSearch {
  const { period, from, to, sort, dir, by } = search;
  return { period, from, to, sort, dir, by };
}

/** Is the list exactly the preset's (so its count is the preset's)? */
export function isPreset(
  search: TransactionsSearch,
  preset: ClosePreset,
  attention: Attention | undefined,
): boolean {
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  const cents = (dollars: unknown) =>
    typeof dollars === 'string' ? dollarsToCents(dollars) : undefined;
  const wanted = presetSearch(search, preset, attention);
  return (
    search.subAccountId === undefined &&
    filterCount(search) === filterCount(wanted) &&
    Object.entries(presetFilter(preset, attention)).every(([key, value]) =>
      // An amount by its value: "75" is "75.00".
      key === 'min'
        ? cents(search.min) === cents(value)
        : same(search[key as keyof TransactionsSearch], value),
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
