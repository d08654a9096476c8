/**
 * Instants written as a person's wall-clock time with its UTC offset (ISO 8601, e.g.
 * `2026-11-03T09:14:05-05:00`), for the CSV export. The offset comes from the runtime's
 * time-zone data (Intl, `longOffset`), so daylight-saving changes and historical offsets are
 * the tz database's.
 *
 * Asking Intl for every cell would double an export's cost, so offsets are kept per UTC day:
 * a day whose first and last seconds have the same offset has it throughout (no zone changes
 * its offset and back within a day); in a day whose ends differ, the second of the change is
 * found by bisection (about 17 more questions), once.
 */
export interface LocalTimes {
  /** The zone's name as written in the file. */
  readonly zone: string;
  /**
   * An upstream timestamp as local time with offset. Fractions of a second are kept as the
   * service wrote them (dropped when all zero); text that is not a timestamp is left as it is.
   */
  format(timestamp: string): string;
}

const SPAN_MS = 86_400_000;
/** One day's offset, or the second it changes and the offsets either side. */
type Span = number | { at: number; before: number; after: number };
/** Spans remembered per export; an export of many years just starts over. */
const MAX_SPANS = 20_000;

/** An ISO instant; a fraction of a second has at most nine digits (nanoseconds). */
const isoInstant =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:?\d{2})$/i;

/** An instant's fields, when `timestamp` is one (a real day and time), else undefined. */
function instantOf(timestamp: string): RegExpExecArray | undefined {
  const m = isoInstant.exec(timestamp);
  if (!m) return undefined;
  const month = Number(m[2]);
  const day = Number(m[3]);
  // Checked by hand: Date.parse would roll 30 February over into March.
  if (month < 1 || month > 12 || day < 1 || (day > 28 && day > daysIn(Number(m[1]), month)))
    return undefined;
  if (Number(m[4]) > 23 || Number(m[5]) > 59 || Number(m[6]) > 59) return undefined;
  return m;
}

/**
 * Whether `format` writes `timestamp` as a local time: then the result is digits, `-`, `:`,
 * `T`, `.` and `+` of our own making, with no text of the service's in it (a fraction of a
 * second aside, at most nine digits).
 */
export const isInstant = (timestamp: string): boolean => instantOf(timestamp) !== undefined;

const nonZero = /[1-9]/;
const two = (n: number) => (n < 10 ? `0${n}` : String(n));

/** `YYYY-MM-DDTHH:MM:SS` of a Date's UTC fields (twice as quick as toISOString and a slice). */
function wallClock(at: Date): string {
  const year = at.getUTCFullYear();
  return `${year < 1000 ? String(year).padStart(4, '0') : year}-${two(at.getUTCMonth() + 1)}-${two(at.getUTCDate())}T${two(at.getUTCHours())}:${two(at.getUTCMinutes())}:${two(at.getUTCSeconds())}`;
}

function daysIn(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** A timestamp's own offset (`Z`, `+02:00`, `-0530`) in ms east of UTC. */
function sourceOffset(zone: string): number {
  if (zone === 'Z' || zone === 'z') return 0;
  const size = (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(-2))) * 60_000;
  return zone[0] === '-' ? -size : size;
}

/** The zone's name as the runtime writes it, or the given one when that is a newer alias. */
export function zoneName(timeZone: string): string {
  const resolved = new Intl.DateTimeFormat('en-US', { timeZone }).resolvedOptions().timeZone;
  // ICU may resolve a current name to an older one (Europe/Kyiv → Europe/Kiev): keep the
  // person's when the two differ by more than letter case.
  return resolved.toLowerCase() === timeZone.toLowerCase() ? resolved : timeZone;
}

/** `timeZone` must be one the runtime knows (`isKnownTimeZone`). */
export function createLocalTimes(timeZone = 'UTC'): LocalTimes {
  const zone = zoneName(timeZone);
  const utc = zone === 'UTC';
  const offsets = utc
    ? undefined
    : new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' });
  const spans = new Map<number, Span>();

  /** Offset east of UTC in ms at an instant, from Intl ("GMT-04:56:02", "GMT+05:45", "GMT"). */
  const offsetAt = (ms: number): number => {
    if (!offsets) return 0;
    const name = offsets.formatToParts(ms).find((p) => p.type === 'timeZoneName')?.value ?? '';
    const m = /^GMT([+-])(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?$/.exec(name);
    if (!m) return 0;
    const size = (Number(m[2]) * 3600 + Number(m[3] ?? 0) * 60 + Number(m[4] ?? 0)) * 1000;
    return m[1] === '-' ? -size : size;
  };

  /** The offset at a whole second, from the span it falls in. */
  const offsetOf = (ms: number): number => {
    if (utc) return 0;
    const index = Math.floor(ms / SPAN_MS);
    let span = spans.get(index);
    if (span === undefined) {
      span = measure(index * SPAN_MS);
      if (spans.size >= MAX_SPANS) spans.clear();
      spans.set(index, span);
    }
    return typeof span === 'number' ? span : ms < span.at ? span.before : span.after;
  };

  /** A span's offset, or where in it the offset changes (to the second: the tz data's unit). */
  const measure = (start: number): Span => {
    const before = offsetAt(start);
    const last = start + SPAN_MS - 1000;
    const after = offsetAt(last);
    if (before === after) return before;
    let lo = start; // offset `before`
    let hi = last; // offset `after`
    while (hi - lo > 1000) {
      const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
      if (offsetAt(mid) === before) lo = mid;
      else hi = mid;
    }
    return { at: hi, before, after };
  };

  return {
    zone,
    format(timestamp) {
      const m = instantOf(timestamp);
      if (!m) return timestamp;
      const [hour, minute, second] = [Number(m[4]), Number(m[5]), Number(m[6])];
      const whole =
        Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), hour, minute, second) -
        sourceOffset(m[8] as string);
      const offset = offsetOf(whole);
      const fraction = m[7];
      const kept = fraction !== undefined && nonZero.test(fraction) ? `.${fraction}` : '';
      return `${wallClock(new Date(whole + offset))}${kept}${offsetText(offset)}`;
    },
  };
}

function offsetText(offsetMs: number): string {
  if (offsetMs === 0) return '+00:00';
  const sign = offsetMs < 0 ? '-' : '+';
  const total = Math.abs(offsetMs) / 1000;
  const seconds = total % 60;
  const text = `${sign}${two(Math.floor(total / 3600))}:${two(Math.floor(total / 60) % 60)}`;
  return seconds ? `${text}:${two(seconds)}` : text;
}
