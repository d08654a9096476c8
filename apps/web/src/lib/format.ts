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

const shortParts = { month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' } as const;
const shortThisYear = new Intl.DateTimeFormat(undefined, shortParts);
const shortOtherYear = new Intl.DateTimeFormat(undefined, { ...shortParts, year: 'numeric' });

/** "Nov 24, 11:48 AM" for a table cell; with the year when it is not this year. */
export function formatShortDateTime(iso: string | undefined, now = Date.now()): string {
  if (!iso) return '—';
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  const sameYear = new Date(ms).getFullYear() === new Date(now).getFullYear();
  return (sameYear ? shortThisYear : shortOtherYear).format(ms);
}

/** To the second (a refresh a few seconds later shows it moved), 12-hour as the app's times. */
const timeParts = {
  hour: 'numeric',
  minute: '2-digit',
  second: '2-digit',
  hour12: true,
} as const;
const timeOnly = new Intl.DateTimeFormat('en-US', timeParts);
const dayAndTime = new Intl.DateTimeFormat('en-US', {
  month: 'short',
  day: 'numeric',
  ...timeParts,
});
const dayYearAndTime = new Intl.DateTimeFormat('en-US', {
  month: 'short',
  day: 'numeric',
  year: 'numeric',
  ...timeParts,
});

/** "14:03:07" today, "Mar 3, 14:03:07" another day (with the year when not this one). */
export function formatUpdatedAt(iso: string, now = Date.now()): string {
  const at = new Date(iso);
  const today = new Date(now);
  if (at.toDateString() === today.toDateString()) return timeOnly.format(at);
  return (at.getFullYear() === today.getFullYear() ? dayAndTime : dayYearAndTime).format(at);
}

/**
 * How long until an estimated end, said as an estimate: "less than a minute left", "about 4
 * minutes left", "about 2 hours left" (hours from 90 minutes on).
 */
export function formatTimeLeft(doneAt: number, now = Date.now()): string {
  const minutes = Math.round((doneAt - now) / 60_000);
  if (minutes < 1) return 'less than a minute left';
  if (minutes < 90) return `about ${minutes} minute${minutes === 1 ? '' : 's'} left`;
  return `about ${Math.round(minutes / 60)} hours left`;
}
