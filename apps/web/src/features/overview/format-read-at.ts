import { formatShortDateTime } from '../../lib/format';

/** Today's time to the second (a Refresh a few seconds later shows it moved), 12-hour as elsewhere. */
const timeToTheSecond = new Intl.DateTimeFormat(undefined, {
  hour: 'numeric',
  minute: '2-digit',
  second: '2-digit',
});

/**
 * When the Overview's still-changing days were read: "10:44:10 PM" today; another day as the
 * app's tables write a time ("Mar 3, 11:59 PM", with the year when not this one).
 */
export function formatReadAt(iso: string, now = Date.now()): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  if (at.toDateString() === new Date(now).toDateString()) return timeToTheSecond.format(at);
  return formatShortDateTime(iso, now);
}
