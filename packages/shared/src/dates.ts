/**
 * Calendar days in a person's time zone ↔ inclusive Unix-millisecond bounds, as the
 * transaction filters need them. Works for any IANA zone, across daylight-saving changes.
 */

export interface DayBounds {
  /** First millisecond of the day. */
  from: number;
  /** Last millisecond of the day (inclusive). */
  to: number;
}

const ISO_DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

export function isIsoDay(value: string): boolean {
  const m = ISO_DAY.exec(value);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
function partsFormatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** The wall-clock fields of an instant in a zone. */
function wallClock(ms: number, timeZone: string) {
  const parts: Record<string, number> = {};
  for (const p of partsFormatter(timeZone).formatToParts(ms)) {
    if (p.type !== 'literal') parts[p.type] = Number(p.value);
  }
  return parts as {
    year: number;
    month: number;
    day: number;
    hour: number;
    minute: number;
    second: number;
  };
}

/** Offset of the zone from UTC at an instant, in ms (east positive). */
function offsetAt(ms: number, timeZone: string): number {
  const w = wallClock(ms, timeZone);
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
  return asUtc - (ms - (((ms % 1000) + 1000) % 1000));
}

/** First instant whose wall-clock date in the zone is the given day. */
function startOfDay(y: number, m: number, d: number, timeZone: string): number {
  const naive = Date.UTC(y, m - 1, d);
  // Two passes settle the offset; then step back by whole minutes while still the same day,
  // for zones whose midnight falls in a daylight-saving gap.
  let t = naive - offsetAt(naive, timeZone);
  t = naive - offsetAt(t, timeZone);
  const key = (ms: number) => {
    const w = wallClock(ms, timeZone);
    return w.year * 10000 + w.month * 100 + w.day;
  };
  const target = y * 10000 + m * 100 + d;
  // If we landed on the previous day (gap at midnight), move forward to the first minute of ours.
  while (key(t) < target) t += 60_000;
  while (key(t - 60_000) === target) t -= 60_000;
  return t;
}

/** `2026-03-08` in `America/New_York` → the day's first and last millisecond. */
export function dayToBounds(isoDay: string, timeZone: string): DayBounds {
  if (!isIsoDay(isoDay)) throw new RangeError(`not a calendar day: ${isoDay}`);
  const [y, m, d] = isoDay.split('-').map(Number) as [number, number, number];
  const from = startOfDay(y, m, d, timeZone);
  const next = new Date(Date.UTC(y, m - 1, d + 1));
  const to =
    startOfDay(next.getUTCFullYear(), next.getUTCMonth() + 1, next.getUTCDate(), timeZone) - 1;
  return { from, to };
}

/** Inclusive bounds for a range of days; either end may be left open. */
export function dayRangeToBounds(
  fromDay: string | undefined,
  toDay: string | undefined,
  timeZone: string,
): { from?: number; to?: number } {
  return {
    ...(fromDay ? { from: dayToBounds(fromDay, timeZone).from } : {}),
    ...(toDay ? { to: dayToBounds(toDay, timeZone).to } : {}),
  };
}

/** The calendar day (YYYY-MM-DD) an instant falls on in a zone. */
export function instantToIsoDay(ms: number, timeZone: string): string {
  const w = wallClock(ms, timeZone);
  return `${String(w.year).padStart(4, '0')}-${String(w.month).padStart(2, '0')}-${String(w.day).padStart(2, '0')}`;
}

/** The person's own zone, as the browser reports it. */
export function localTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/** The calendar day (YYYY-MM-DD) `n` days after (before, if negative) `day`. */
export function addDays(day: string, n: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
}
