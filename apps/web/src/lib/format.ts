/** Dates on screen are in the person's own time zone (the browser's). */
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });

export function formatDateTime(iso: string | undefined): string {
  if (!iso) return '—';
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? iso : dateTime.format(ms);
}

/** A Unix-ms instant as date and time in the person's zone. */
export function formatInstant(ms: number | undefined): string {
  return ms === undefined ? '—' : dateTime.format(ms);
}

const calendarDay = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' });

/** An instant as a date in the person's zone; a bare calendar day (YYYY-MM-DD) as that day. */
export function formatDate(iso: string | undefined): string {
  if (!iso) return '—';
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  // A bare day parses as UTC midnight; shown in a zone west of UTC it would be the day before.
  return /^\d{4}-\d{2}-\d{2}$/.test(iso) ? calendarDay.format(ms) : dateOnly.format(ms);
}

export function formatExpiry(month: string | undefined, year: string | undefined): string {
  if (!month || !year) return '—';
  return `${month.padStart(2, '0')}/${year.slice(-2)}`;
}

export function maskedLast4(last4: string): string {
  return `•••• ${last4}`;
}

export function maskedPan(last4: string): string {
  return `•••• •••• •••• ${last4}`;
}

/** "1234567812345678" → "1234 5678 1234 5678". */
export function groupInFours(digits: string): string {
  return digits.replace(/\s+/g, '').replace(/(.{4})(?=.)/g, '$1 ');
}
