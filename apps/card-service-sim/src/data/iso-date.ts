const DAY_MS = 86_400_000;
/** A few years of days; past this the cache starts over rather than growing. */
const MAX_DAYS = 4096;
const dayPrefixes = new Map<number, string>();

const pad2 = (n: number) => (n < 10 ? `0${n}` : `${n}`);
const pad3 = (n: number) => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`);

/**
 * `new Date(ms).toISOString()` for whole milliseconds in the years 1970–9999, a quarter of the cost: the date part
 * is cached per day and the time of day is plain arithmetic. A page of transactions writes
 * up to a hundred of these, and `toISOString` was a third of a page's time.
 */
export function isoDate(ms: number): string {
  if (!(Number.isInteger(ms) && ms >= 0 && ms < 253_402_300_800_000)) {
    return new Date(ms).toISOString();
  }
  const day = Math.floor(ms / DAY_MS);
  let prefix = dayPrefixes.get(day);
  if (prefix === undefined) {
    if (dayPrefixes.size >= MAX_DAYS) dayPrefixes.clear();
    prefix = new Date(day * DAY_MS).toISOString().slice(0, 11);
    dayPrefixes.set(day, prefix);
  }
  const t = ms - day * DAY_MS;
  const h = Math.floor(t / 3_600_000);
  const m = Math.floor(t / 60_000) % 60;
  const s = Math.floor(t / 1000) % 60;
  return `${prefix}${pad2(h)}:${pad2(m)}:${pad2(s)}.${pad3(t % 1000)}Z`;
}
