// Types only from the API module: its schemas (zod) stay out of the first download.
import type { IndexQuery, IndexTotalsQuery } from '@card-console/shared/api/transaction-index';
import { categoryGroups, uncategorized } from '@card-console/shared/category-groups';
import { dayRangeToBounds, instantToIsoDay, isIsoDay } from '@card-console/shared/dates';
import {
  type IndexGroupingName,
  indexGroupings,
  OWNER_FILTER_MAX,
  OWNERSHIP_NAME_MAX,
} from '@card-console/shared/index-vocabulary';
import { parseDollarsToCents } from '@card-console/shared/money';
import { type TransactionStatus, transactionStatuses } from '@card-console/shared/upstream/enums';
import { type Period, periodDays, periods } from '../../lib/periods';
import { listOf, oneOf, pageCount, resourceId, text } from '../../lib/search-params';
import { isTagText } from './tag-text';

/**
 * The Transactions screen's URL state: the index's filters as a person sets them. Days, not
 * instants (a link means the same days wherever it is opened), a date preset by name (a link
 * to "yesterday" means the day before the day it is opened), amounts as typed in dollars.
 * A list holds any of its values; one value alone may be written as a plain string.
 */
export interface TransactionsSearch {
  /** One sub account; none: every sub account. */
  subAccountId?: string | undefined;
  /** Words in the description, the merchant's text or the reference number. */
  q?: string | undefined;
  period?: Period | undefined;
  /** First day, YYYY-MM-DD, in the person's time zone (when no preset is chosen). */
  from?: string | undefined;
  /** Last day (inclusive), YYYY-MM-DD. */
  to?: string | undefined;
  status?: TransactionStatus[] | undefined;
  cardId?: string[] | undefined;
  /** Merchant category codes (four digits). */
  category?: string[] | undefined;
  /** Groups of codes (the networks' ranges), or `uncategorized`. */
  categoryGroup?: string[] | undefined;
  /** Merchants, by their exact text. */
  merchant?: string[] | undefined;
  /** Merchants by name, however the card networks write them (every text of theirs). */
  merchantName?: string[] | undefined;
  declineReason?: string[] | undefined;
  /**
   * `1`: rows the card service gave no decline reason for (the Overview's "No reason given");
   * with `declineReason`, rows of any of those reasons or of none.
   */
  noDeclineReason?: '1' | undefined;
  /** Rows with a card, or without one (docs/money.md: an absent or empty card id is none). */
  card?: CardFilter | undefined;
  /** The cards of these owners, or of these teams, by name in any case (Card Console's own). */
  owner?: string[] | undefined;
  team?: string[] | undefined;
  /** Smallest and largest amount (either sign), dollars as typed: "50", "1200.50". */
  min?: string | undefined;
  max?: string | undefined;
  /** Sorted by amount (largest first unless `dir` says otherwise); none: by date. */
  sort?: 'amount' | undefined;
  /** `asc`: oldest or smallest first; none: newest or largest first. */
  dir?: 'asc' | undefined;
  /** Notes: reviewed or not (a transaction without notes is not reviewed). */
  review?: Review | undefined;
  /** Accounting categories by id, or `none` (booked to none): any of them. */
  account?: string[] | undefined;
  /** Tags, any of them, whatever their case. */
  tag?: string[] | undefined;
  /** With a receipt attached, or without any. */
  receipt?: ReceiptFilter | undefined;
  /** With a memo written, or none (a transaction without notes has none). */
  memo?: MemoFilter | undefined;
  /** Totals of the whole filtered set by this, above the list. */
  by?: IndexGroupingName | undefined;
  /** Pages shown, from the first ("Load more" adds one); none for one. */
  pages?: number | undefined;
}

export const reviews = ['unreviewed', 'reviewed'] as const;
export type Review = (typeof reviews)[number];
export const receiptFilters = ['attached', 'missing'] as const;
export type ReceiptFilter = (typeof receiptFilters)[number];
export const memoFilters = ['missing', 'written'] as const;
export const cardFilters = ['with', 'without'] as const;
export type CardFilter = (typeof cardFilters)[number];
export type MemoFilter = (typeof memoFilters)[number];
/** The `account` value for "booked to no accounting category". */
export const NO_ACCOUNT = 'none';

const day = (value: unknown) => {
  const d = text(value, 10);
  return d && isIsoDay(d) ? d : undefined;
};

/** An owner's or a team's name, as `ownershipFilterNameSchema` takes it. */
const ownershipName = (value: unknown) => text(value, OWNERSHIP_NAME_MAX, /\S/);

const groupKeys = [uncategorized.key, ...categoryGroups.map((g) => g.key)];
export const groupings = indexGroupings;

/** Dollars as typed → cents (either sign taken as a size); undefined when not an amount. */
export function dollarsToCents(typed: string): number | undefined {
  const parsed = parseDollarsToCents(typed, { allowNegative: true });
  // The BFF takes at most 13 digits of cents.
  return parsed.ok && Math.abs(parsed.cents) <= 9_999_999_999_999
    ? Math.abs(parsed.cents)
    : undefined;
}

const amount = (value: unknown) => {
  const typed = text(typeof value === 'number' ? String(value) : value, 20);
  return typed !== undefined && dollarsToCents(typed) !== undefined ? typed : undefined;
};

/** A bad value falls back to no filter instead of failing: a mangled link still opens. */
export function validateTransactionsSearch(search: Record<string, unknown>): TransactionsSearch {
  const period = oneOf(periods, search.period);
  let from = period ? undefined : day(search.from);
  let to = period ? undefined : day(search.to);
  // Days in the wrong order select nothing the person meant: drop both.
  if (from && to && from > to) from = to = undefined;
  let min = amount(search.min);
  let max = amount(search.max);
  if (min && max && (dollarsToCents(min) as number) > (dollarsToCents(max) as number)) {
    min = max = undefined;
  }
  return {
    subAccountId: resourceId(search.subAccountId),
    q: text(search.q, 200),
    period,
    from,
    to,
    status: listOf(search.status, (v) => oneOf(transactionStatuses, v), 9, { commaFree: true }),
    cardId: listOf(search.cardId, resourceId, 50),
    category: listOf(search.category, (v) => text(v, 4, /^\d{4}$/), 50, { commaFree: true }),
    categoryGroup: listOf(search.categoryGroup, (v) => oneOf(groupKeys, v), 20, {
      commaFree: true,
    }),
    merchant: listOf(search.merchant, (v) => text(v, 200), 20),
    merchantName: listOf(search.merchantName, (v) => text(v, 200), 20),
    declineReason: listOf(search.declineReason, (v) => text(v, 200), 20),
    noDeclineReason: oneOf(['1'] as const, search.noDeclineReason),
    card: oneOf(cardFilters, search.card),
    owner: listOf(search.owner, ownershipName, OWNER_FILTER_MAX),
    team: listOf(search.team, ownershipName, OWNER_FILTER_MAX),
    min,
    max,
    review: oneOf(reviews, search.review),
    // As many as a close policy's memo categories ("Missing memo" names them all).
    account: listOf(search.account, (v) => (v === NO_ACCOUNT ? NO_ACCOUNT : resourceId(v)), 200),
    tag: listOf(search.tag, (v) => (typeof v === 'string' && isTagText(v) ? v : undefined), 20),
    receipt: oneOf(receiptFilters, search.receipt),
    memo: oneOf(memoFilters, search.memo),
    sort: oneOf(['amount'] as const, search.sort),
    dir: oneOf(['asc'] as const, search.dir),
    by: oneOf(groupings, search.by),
    pages: pageCount(search.pages),
  };
}

/** The filters a person set (what "Clear filters" clears), counted for the phone's toggle. */
export function filterCount(search: TransactionsSearch): number {
  return [
    search.q,
    search.period ?? search.from ?? search.to,
    search.status,
    search.cardId,
    search.category ?? search.categoryGroup,
    search.merchant,
    search.merchantName,
    search.declineReason,
    search.noDeclineReason,
    search.card,
    search.owner,
    search.team,
    search.min ?? search.max,
    search.review,
    search.account,
    search.tag,
    search.receipt,
    search.memo,
  ].filter((v) => v !== undefined).length;
}

/** The chosen days: the preset's on the person's today, or the custom ones. */
export function chosenDays(
  search: Pick<TransactionsSearch, 'period' | 'from' | 'to'>,
  timeZone: () => string,
  now: number,
): { from?: string | undefined; to?: string | undefined } {
  if (search.period) return periodDays(search.period, instantToIsoDay(now, timeZone()));
  return { from: search.from, to: search.to };
}

/**
 * The index's query for the screen's state: days as inclusive Unix-ms bounds in the person's
 * zone, dollars as cents. The zone is asked for only when a day is chosen: the browser's
 * first time-zone lookup can take a few hundred ms, which would hold up the first request.
 */
export function toIndexQuery(
  search: TransactionsSearch,
  timeZone: () => string,
  now: number,
): IndexQuery {
  const days = chosenDays(search, timeZone, now);
  const bounds = days.from || days.to ? dayRangeToBounds(days.from, days.to, timeZone()) : {};
  const cents = (dollars: string | undefined) => {
    const n = dollars === undefined ? undefined : dollarsToCents(dollars);
    return n === undefined ? undefined : String(n);
  };
  const query: Record<string, unknown> = {
    subAccountId: search.subAccountId,
    q: search.q,
    from: bounds.from === undefined ? undefined : String(bounds.from),
    to: bounds.to === undefined ? undefined : String(bounds.to),
    status: search.status,
    cardId: search.cardId,
    category: search.category,
    categoryGroup: search.categoryGroup,
    merchant: search.merchant,
    merchantName: search.merchantName,
    declineReason: search.declineReason,
    noDeclineReason: search.noDeclineReason,
    card: search.card,
    owner: search.owner,
    team: search.team,
    minCents: cents(search.min),
    maxCents: cents(search.max),
    review: search.review,
    account: search.account,
    tag: search.tag,
    receipt: search.receipt,
    memo: search.memo,
    sort: search.sort,
    direction: search.dir,
  };
  return Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined)) as IndexQuery;
}

/**
 * The query of the list's figures: the same filter (not its order, page or size), and the
 * dimension of its totals when one is chosen.
 */
export function toTotalsQuery(query: IndexQuery, by: TransactionsSearch['by']): IndexTotalsQuery {
  const {
    sort: _sort,
    direction: _direction,
    cursor: _cursor,
    limit: _limit,
    refresh: _refresh,
    ...filter
  } = query;
  return by === undefined ? filter : { ...filter, by };
}
