/**
 * Reads a `Retry-After` header: delta seconds or an HTTP date. Returns milliseconds to wait
 * (never negative), or undefined when the header is absent or unreadable.
 */
export function parseRetryAfter(
  value: string | string[] | undefined,
  now: number,
): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined) return undefined;
  const trimmed = text.trim();
  if (/^\d{1,9}$/.test(trimmed)) return Number(trimmed) * 1000;
  if (!/[a-z]/i.test(trimmed)) return undefined;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}
