import type { Attention } from '@card-console/shared/api/transaction-index';
import { dayRangeToBounds, instantToIsoDay, localTimeZone } from '@card-console/shared/dates';
import { centsToDollarInput, formatCents } from '@card-console/shared/money';
import { moneyWords, statusesOf } from '@card-console/shared/money-definition';
import { formatDate } from '../../lib/format';
import { monthCloseDays } from '../../lib/periods';
import type { AttentionQuery } from './api/get-attention';
import {
  dollarsToCents,
  filterCount,
  NO_ACCOUNT,
  type TransactionsSearch,
} from './transactions-search';

/**
 * The BFF's RECEIPT_FROM_CENTS_DEFAULT ($75), the close policy's until an admin sets one, for a
 * click before the counts arrive (which say the policy's figure); not imported, so its module's
 * zod schemas stay out of this chunk.
 */
const RECEIPT_FROM_CENTS_FALLBACK = 7_500;
/** Money that moved or will (docs/money.md: posted or pending): what the close reviews. */
const moved = statusesOf(['posted', 'pending']);
/** Declined, canceled and failed: no money moved, counted apart. */
const attempted = statusesOf(['attempted']);

/**
 * What the month close still needs, each a filter of the list (as GET /api/index/attention
 * counts it): the money that moved or will, never a row that moved nothing; those apart.
 */
export const closePresets = [
  {
    key: 'unreviewed',
    label: 'To review',
    noun: 'to review (money that moved, not reviewed)',
    filter: { review: 'unreviewed', status: moved },
  },
  {
    key: 'uncategorized',
    label: 'No category',
    noun: 'with no accounting category (money that moved)',
    filter: { account: [NO_ACCOUNT], status: moved },
  },
  {
    // Money moved from a size up (the counts' `fromCents`: the `min` added by `presetFilter`).
    key: 'missingReceipt',
    label: 'Missing receipt',
    noun: 'with no receipt',
    filter: { status: moved, receipt: 'missing' },
  },
  {
    // The close policy's memo categories (the counts' `categoryIds`: the `account` added by
    // `presetFilter`); shown only when the policy names some.
    key: 'missingMemo',
    label: 'Missing memo',
    noun: 'booked to a category that needs a memo, with none (money that moved)',
    filter: { status: moved, memo: 'missing' },
  },
  {
    key: 'declined',
    label: moneyWords.attempted.label,
    noun: 'declined, canceled or failed (no money moved, not to review)',
    filter: { status: attempted },
  },
] as const satisfies readonly {
  key: keyof Omit<Attention, 'freshness'>;
  label: string;
  noun: string;
  filter: Partial<TransactionsSearch>;
}[];
export type ClosePreset = (typeof closePresets)[number];

/**
 * From what size spend needs a receipt: as the counts say (null: the close policy asks for no
 * receipts), or the BFF's default before they arrive.
 */
function receiptFromCents(attention: Attention | undefined): number | null {
  return attention === undefined ? RECEIPT_FROM_CENTS_FALLBACK : attention.missingReceipt.fromCents;
}

/**
 * Whether the bar offers a preset: "Missing receipt" unless the close policy asks for no
 * receipts, "Missing memo" once the counts say the policy names categories needing one.
 */
export function presetShown(preset: ClosePreset, attention: Attention | undefined): boolean {
  if (preset.key === 'missingReceipt') return receiptFromCents(attention) !== null;
  if (preset.key === 'missingMemo') return (attention?.missingMemo.categoryIds.length ?? 0) > 0;
  return true;
}

/**
 * A preset's filter; "Missing receipt" adds its smallest amount and "Missing memo" the
 * categories needing one, from the counts (the close policy's).
 */
export function presetFilter(
  preset: ClosePreset,
  attention: Attention | undefined,
): Partial<TransactionsSearch> {
  if (preset.key === 'missingMemo') {
    const categoryIds = attention?.missingMemo.categoryIds ?? [];
    return { ...preset.filter, account: categoryIds.length > 0 ? categoryIds : undefined };
  }
  if (preset.key !== 'missingReceipt') return preset.filter;
  const from = receiptFromCents(attention);
  return {
    ...preset.filter,
    min: from !== null && from > 0 ? centsToDollarInput(from) : undefined,
  };
}

/**
 * "not reviewed"; "moving $75.00 or more, in or out, with no receipt": the count is of money
 * that moved either way at or above the size (decision 0116), refunds and transfers in
 * included, so it never says "spent".
 */
export function presetNoun(preset: ClosePreset, attention: Attention | undefined): string {
  if (preset.key === 'missingMemo') {
    const n = attention?.missingMemo.categoryIds.length ?? 0;
    return `booked to ${n === 1 ? 'the category' : `one of the ${n} categories`} the close policy asks a memo for, with none`;
  }
  if (preset.key !== 'missingReceipt') return preset.noun;
  const from = receiptFromCents(attention);
  return from !== null && from > 0
    ? `moving ${formatCents(from)} or more, in or out, with no receipt`
    : 'moving money, in or out, with no receipt';
}

/**
 * The list of a preset: its filter alone, over the counts' days (`countedDays`: the list's, or
 * the month close's when the list has none), every sub account, same order.
 */
export function presetSearch(
  search: TransactionsSearch,
  preset: ClosePreset,
  attention: Attention | undefined,
  today: string,
): TransactionsSearch {
  const kept = datesAndOrder(search);
  const days = hasDays(search) ? {} : monthCloseDays(today);
  return { ...kept, ...days, ...presetFilter(preset, attention) };
}

const hasDays = (days: { period?: unknown; from?: unknown; to?: unknown }) =>
  days.period !== undefined || days.from !== undefined || days.to !== undefined;

/**
 * The days the close's counts are over and their bounds as asked (the person's zone, worked out
 * at `now`): the list's, or (a list of every day) the month close's, as the navigation counts
 * them, so the two ask the same and say the same number for the same days.
 */
export function countedWindow(
  days: { from?: string | undefined; to?: string | undefined },
  now: number,
): {
  days: { from?: string | undefined; to?: string | undefined };
  query: AttentionQuery;
  today: string;
} {
  const zone = localTimeZone();
  const today = instantToIsoDay(now, zone);
  const counted = hasDays(days) ? days : monthCloseDays(today);
  const bounds = dayRangeToBounds(counted.from, counted.to, zone);
  const query: AttentionQuery = {};
  if (bounds.from !== undefined) query.from = String(bounds.from);
  if (bounds.to !== undefined) query.to = String(bounds.to);
  return { days: counted, query, today };
}

/**
 * The counts' days in words, the same in the navigation and on the list: "from Oct 1, 2026 to
 * today (last month and this month so far)" for the month close's, else as `daysText`.
 */
export function countedDaysText(
  days: { from?: string | undefined; to?: string | undefined },
  today: string,
): string {
  const close = monthCloseDays(today);
  return days.from === close.from && days.to === close.to
    ? `from ${formatDate(close.from)} to today (last month and this month so far)`
    : daysText(days);
}

/** The navigation's link: "To review" over the month close's days, as its count is. */
export function closePresetSearch(today: string): TransactionsSearch {
  const [toReview] = closePresets;
  return { ...monthCloseDays(today), ...presetFilter(toReview, undefined) };
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
  const wanted = { ...datesAndOrder(search), ...presetFilter(preset, attention) };
  // A list of every day is no preset's: a preset's days are the counts' (`countedWindow`).
  return (
    hasDays(search) &&
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
