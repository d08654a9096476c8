/**
 * Calendar days (`YYYY-MM-DD`) in a person's time zone and the instants they start at, from
 * the runtime's time-zone data (Intl), so daylight-saving changes are the tz database's: a
 * day may last 23 or 25 hours, and a zone that skips midnight starts its day at the first
 * instant that exists.
 */

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

const formatters = new Map<string, Intl.DateTimeFormat>();

function offsetFormatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' });
    formatters.set(timeZone, f);
  }
  return f;
}

/** The zone's offset from UTC at an instant, in ms (east positive). */
export function offsetAt(ms: number, timeZone: string): number {
  const name = offsetFormatter(timeZone)
    .formatToParts(ms)
    .find((p) => p.type === 'timeZoneName')?.value;
  const m = name && /GMT([+-])(\d{2}):(\d{2})(?::(\d{2}))?/.exec(name);
  if (!m) return 0; // "GMT": UTC itself
  const size = (Number(m[2]) * 3600 + Number(m[3]) * 60 + Number(m[4] ?? 0)) * 1000;
  return m[1] === '-' ? -size : size;
}

const two = (n: number) => (n < 10 ? `0${n}` : String(n));

/** The UTC calendar day of an instant (for day arithmetic on day strings). */
function utcDay(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())}`;
}

/** Midnight UTC of a day string. */
function utcMidnight(day: string): number {
  return Date.UTC(Number(day.slice(0, 4)), Number(day.slice(5, 7)) - 1, Number(day.slice(8, 10)));
}

export function addDays(day: string, n: number): string {
  return utcDay(utcMidnight(day) + n * DAY_MS);
}

/** Whole days from `a` to `b` (b − a). */
export function daysBetween(a: string, b: string): number {
  return Math.round((utcMidnight(b) - utcMidnight(a)) / DAY_MS);
}

/** Every day from `from` to `to`, inclusive. */
export function dayList(from: string, to: string): string[] {
  const out: string[] = [];
  for (let d = from; d <= to; d = addDays(d, 1)) out.push(d);
  return out;
}

/** Monday of the day's week (ISO weeks). */
export function mondayOf(day: string): string {
  const weekday = (new Date(utcMidnight(day)).getUTCDay() + 6) % 7; // Monday 0
  return addDays(day, -weekday);
}

/** The person's calendar day an instant falls on. */
export function localDay(ms: number, timeZone: string): string {
  return utcDay(ms + offsetAt(ms, timeZone));
}

const starts = new Map<string, number>();

/** The first instant (Unix ms) of `day` in `timeZone`. */
export function dayStart(day: string, timeZone: string): number {
  const key = `${timeZone}\u0000${day}`;
  const known = starts.get(key);
  if (known !== undefined) return known;
  const midnight = utcMidnight(day);
  // Local midnight is UTC midnight minus the offset in force then; two tries settle it
  // unless midnight falls in a gap (or the change is at midnight): then search.
  let t = midnight - offsetAt(midnight, timeZone);
  t = midnight - offsetAt(t, timeZone);
  if (!(localDay(t, timeZone) === day && localDay(t - 1, timeZone) < day)) {
    // The first instant whose day is `day`: offsets lie within ±18 hours.
    let lo = midnight - 18 * HOUR_MS;
    let hi = midnight + 18 * HOUR_MS;
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      if (localDay(mid, timeZone) >= day) hi = mid;
      else lo = mid + 1;
    }
    t = lo;
  }
  if (starts.size > 50_000) starts.clear();
  starts.set(key, t);
  return t;
}
