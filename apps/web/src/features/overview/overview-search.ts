import { addDays, isIsoDay } from '@card-console/shared/dates';
import { type Period as CalendarPeriod, periodDays as calendarDays } from '../../lib/periods';
import { oneOf, resourceId, text } from '../../lib/search-params';

/**
 * The Overview's periods: rolling ones (its own names, kept for the links that hold them: the
 * last 30 days, none in a link, is the default), the calendar presets every date choice offers
 * (lib/periods; its "Last 30/90 days" are these), and custom dates. "Any time" is not one: the
 * Overview sums at most a year.
 */
const CALENDAR = [
  'today',
  'yesterday',
  'this-week',
  'last-week',
  'last-7-days',
  'this-month',
  'last-month',
  'this-quarter',
  'last-quarter',
  'year-to-date',
] as const satisfies readonly CalendarPeriod[];
export const PERIODS = [
  'today',
  'yesterday',
  'this-week',
  'last-week',
  'last-7-days',
  '30d',
  '90d',
  '365d',
  'this-month',
  'last-month',
  'this-quarter',
  'last-quarter',
  'year-to-date',
  'custom',
] as const;
export type Period = (typeof PERIODS)[number];
const isCalendar = (period: Period | undefined): period is (typeof CALENDAR)[number] =>
  (CALENDAR as readonly string[]).includes(period ?? '');

/** The longest period the BFF sums, in days. */
export const MAX_PERIOD_DAYS = 366;

/** The Overview's URL state: a sub account (none: all of them) and a period of days. */
export interface OverviewSearch {
  subAccountId?: string | undefined;
  /** None: the last 30 days. */
  period?: Period | undefined;
  /** First and last day (YYYY-MM-DD, inclusive) of a custom period, in the person's zone. */
  from?: string | undefined;
  to?: string | undefined;
}

const DAY_MS = 86_400_000;

/** Days from `from` to `to`, both counted. */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS) + 1;
}

const day = (value: unknown) => {
  const d = text(value, 10);
  return d && isIsoDay(d) ? d : undefined;
};

/**
 * A bad value falls back to the default instead of failing: a mangled link still opens. Days
 * belong to a custom period only, and a custom period needs both, in order, within a year.
 */
export function validateOverviewSearch(search: Record<string, unknown>): OverviewSearch {
  let period = oneOf(PERIODS, search.period);
  let from = period === 'custom' ? day(search.from) : undefined;
  let to = period === 'custom' ? day(search.to) : undefined;
  if (
    period === 'custom' &&
    (!from || !to || from > to || daysBetween(from, to) > MAX_PERIOD_DAYS)
  ) {
    period = from = to = undefined;
  }
  return { subAccountId: resourceId(search.subAccountId), period, from, to };
}

/**
 * The period's first and last day: a calendar preset's on `today` (in the zone), the last
 * 30/90/365 days ending today, or the custom dates.
 */
export function periodDays(search: OverviewSearch, today: string): { from: string; to: string } {
  if (search.period === 'custom' && search.from && search.to) {
    return { from: search.from, to: search.to };
  }
  if (isCalendar(search.period)) return calendarDays(search.period, today);
  const days = search.period === '90d' ? 90 : search.period === '365d' ? 365 : 30;
  return { from: addDays(today, 1 - days), to: today };
}
