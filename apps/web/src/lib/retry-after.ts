/**
 * A `Retry-After` header in whole seconds: delta-seconds, or an HTTP date. A date counts from the
 * answer's own `Date` header when there is one, so a wrong clock on this machine neither stretches
 * nor cuts the wait. Undefined when absent or unreadable; a date in the past is 0.
 */
export function retryAfterSeconds(headers: Headers, now = Date.now()): number | undefined {
  const value = headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  // Every HTTP-date form starts with the day's name; Date.parse alone takes "-3" as a year.
  const at = /^[A-Za-z]{3}/.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(at)) return undefined;
  const sent = Date.parse(headers.get('date') ?? '');
  return Math.max(0, Math.ceil((at - (Number.isNaN(sent) ? now : sent)) / 1000));
}
