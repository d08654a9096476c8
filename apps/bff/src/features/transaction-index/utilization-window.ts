// The current window of a card's utilisation limit: the days whose spend counts against it now.
// The card service's contract names the preset, the time zone and the start date but says no
// more (only "daily" is shown), so this is our reading, written down in decision 0110:
// - days are calendar days in the limit's time zone (UTC when it names none: absent or blank);
// - daily: today; weekly: seven-day windows from the start date; monthly: from the start
//   date's day of the month (the month's last day when it has fewer); yearly: from its
//   anniversary (28 February in other years for a 29 February start);
// - without a start date (absent or blank), windows follow the calendar (weeks from Monday,
//   months, years);
// - before the start date the window is the first one, and nothing counts yet;
// - "collective", any other preset, a start date or zone that cannot be read: unknown.

import { isKnownTimeZone } from '@card-console/shared/api/transactions';
import { addDays, dayToBounds, instantToIsoDay, isIsoDay } from '@card-console/shared/dates';

export interface UtilizationLimitDefinition {
  preset?: string | undefined;
  timezone?: string | undefined;
  startDate?: string | undefined;
}

export interface UtilizationWindow {
  /** First and last day (inclusive), YYYY-MM-DD in `timeZone`. */
  fromDay: string;
  toDay: string;
  timeZone: string;
  /** The same days as instants: `from` included, `to` excluded. */
  from: number;
  to: number;
}

const pad = (n: number) => String(n).padStart(2, '0');
const daysIn = (y: number, m: number) => new Date(Date.UTC(y, m, 0)).getUTCDate();
/** Day `d` of month `m` (1–12, any year overflow handled), clamped to the month's length. */
function dayOfMonth(y: number, m: number, d: number): string {
  const first = new Date(Date.UTC(y, m - 1, 1));
  const year = first.getUTCFullYear();
  const month = first.getUTCMonth() + 1;
  return `${year}-${pad(month)}-${pad(Math.min(d, daysIn(year, month)))}`;
}
const parts = (day: string) => day.split('-').map(Number) as [number, number, number];
const daysBetween = (a: string, b: string) =>
  Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / 86_400_000);

/** The window containing `today` (or the first one, when `today` is before `start`). */
function windowDays(preset: string, start: string | undefined, today: string) {
  const anchor = start !== undefined && start > today ? start : today;
  const [y, m, d] = parts(anchor);
  switch (preset) {
    case 'daily':
      return { fromDay: anchor, toDay: anchor };
    case 'weekly': {
      if (start === undefined) {
        const weekday = (new Date(Date.UTC(y, m - 1, d)).getUTCDay() + 6) % 7;
        const monday = addDays(anchor, -weekday);
        return { fromDay: monday, toDay: addDays(monday, 6) };
      }
      const from = addDays(start, Math.floor(daysBetween(start, anchor) / 7) * 7);
      return { fromDay: from, toDay: addDays(from, 6) };
    }
    case 'monthly': {
      const startDay = start === undefined ? 1 : parts(start)[2];
      let from = dayOfMonth(y, m, startDay);
      if (from > anchor) from = dayOfMonth(y, m - 1, startDay);
      const [fy, fm] = parts(from);
      return { fromDay: from, toDay: addDays(dayOfMonth(fy, fm + 1, startDay), -1) };
    }
    case 'yearly': {
      const [, sm, sd] = start === undefined ? [0, 1, 1] : parts(start);
      const on = (year: number) => dayOfMonth(year, sm, sd);
      const from = on(y) > anchor ? on(y - 1) : on(y);
      return { fromDay: from, toDay: addDays(on(parts(from)[0] + 1), -1) };
    }
    default:
      return undefined;
  }
}

/** The limit's window at `now`; undefined when it cannot be known (see the file's head). */
export function currentUtilizationWindow(
  limit: UtilizationLimitDefinition,
  now: number,
): UtilizationWindow | undefined {
  // A blank zone or start names none, as an absent one (the contract says only "string").
  const timeZone = limit.timezone?.trim() || 'UTC';
  const startDate = limit.startDate?.trim() || undefined;
  if (!isKnownTimeZone(timeZone)) return undefined;
  if (startDate !== undefined && !isIsoDay(startDate)) return undefined;
  const days = windowDays(limit.preset ?? '', startDate, instantToIsoDay(now, timeZone));
  if (!days) return undefined;
  return {
    ...days,
    timeZone,
    from: dayToBounds(days.fromDay, timeZone).from,
    to: dayToBounds(days.toDay, timeZone).to + 1,
  };
}
