import { addDays } from '@card-console/shared/dates';

/**
 * The date presets wherever days are chosen (Transactions, Audit), as finance thinks of them:
 * calendar periods and rolling ones. Weeks start on Monday (ISO 8601); a rolling "Last N days"
 * counts today as the Nth (as card platforms do), so it holds the newest rows.
 */
export const periods = [
  'today',
  'yesterday',
  'this-week',
  'last-week',
  'last-7-days',
  'last-30-days',
  'last-90-days',
  'this-month',
  'last-month',
  'this-quarter',
  'last-quarter',
  'year-to-date',
] as const;
export type Period = (typeof periods)[number];

export const PERIOD_LABELS: Record<Period, string> = {
  today: 'Today',
  yesterday: 'Yesterday',
  'this-week': 'This week',
  'last-week': 'Last week',
  'last-7-days': 'Last 7 days',
  'last-30-days': 'Last 30 days',
  'last-90-days': 'Last 90 days',
  'this-month': 'This month',
  'last-month': 'Last month',
  'this-quarter': 'This quarter',
  'last-quarter': 'Last quarter',
  'year-to-date': 'Year to date',
};

const pad = (n: number) => String(n).padStart(2, '0');
const dayOf = (y: number, m: number, d: number) => {
  const date = new Date(Date.UTC(y, m - 1, d));
  return `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`;
};

/**
 * The first and last day (inclusive, YYYY-MM-DD) a preset means on `today` (the person's own
 * day, in their zone). "This" periods end today: nothing later exists yet.
 */
export function periodDays(period: Period, today: string): { from: string; to: string } {
  const [y, m, d] = today.split('-').map(Number) as [number, number, number];
  const weekday = (new Date(Date.UTC(y, m - 1, d)).getUTCDay() + 6) % 7; // Monday 0
  const quarterStart = Math.floor((m - 1) / 3) * 3 + 1;
  switch (period) {
    case 'today':
      return { from: today, to: today };
    case 'yesterday': {
      const day = addDays(today, -1);
      return { from: day, to: day };
    }
    case 'this-week':
      return { from: addDays(today, -weekday), to: today };
    case 'last-week': {
      const monday = addDays(today, -weekday - 7);
      return { from: monday, to: addDays(monday, 6) };
    }
    case 'last-7-days':
      return { from: addDays(today, -6), to: today };
    case 'last-30-days':
      return { from: addDays(today, -29), to: today };
    case 'last-90-days':
      return { from: addDays(today, -89), to: today };
    case 'this-month':
      return { from: dayOf(y, m, 1), to: today };
    case 'last-month':
      return { from: dayOf(y, m - 1, 1), to: dayOf(y, m, 0) };
    case 'this-quarter':
      return { from: dayOf(y, quarterStart, 1), to: today };
    case 'last-quarter':
      return { from: dayOf(y, quarterStart - 3, 1), to: dayOf(y, quarterStart, 0) };
    case 'year-to-date':
      return { from: dayOf(y, 1, 1), to: today };
  }
}

/** The month close's days on `today`: the previous calendar month and this month so far. */
export function monthCloseDays(today: string): { from: string; to: string } {
  return { from: periodDays('last-month', today).from, to: today };
}
