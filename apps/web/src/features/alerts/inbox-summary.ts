import { type InboxItem, wholePercentOf } from '@card-console/shared/api/alerts';
import { formatCents } from '@card-console/shared/money';
import { formatShortDateTime, maskedLast4 } from '../../lib/format';

/** "$500" for a round threshold, "$12.40" otherwise. */
function money(cents: number): string {
  return formatCents(Math.abs(cents)).replace(/\.00$/, '');
}

function cardOf(item: InboxItem): string {
  const last4 = item.last4 ? maskedLast4(item.last4).replace(' ', '') : '';
  return [item.cardName, last4].filter(Boolean).join(' ') || 'a card';
}

/**
 * One line saying what happened, by the kind of rule that raised it; a test says it is one, of
 * which rule, before the example it carries.
 */
export function inboxSummary(item: InboxItem): string {
  const summary = kindSummary(item);
  return item.test ? `Test of “${item.ruleName}” · ${summary}` : summary;
}

function kindSummary(item: InboxItem): string {
  switch (item.kind) {
    case 'declined': {
      const what = `${item.merchantName ?? item.merchant ?? item.description} ${formatCents(Math.abs(item.amountCents))}`;
      return ['Declined', what, item.declineReason].filter(Boolean).join(' · ');
    }
    case 'amount_above':
      return `Over ${money(item.thresholdCents)} · ${item.merchantName ?? item.merchant ?? item.description} ${formatCents(Math.abs(item.amountCents))}`;
    case 'new_category':
      return `New category for card ${cardOf(item)}: ${item.categoryCode ?? item.merchantName ?? item.merchant ?? item.description}`;
    case 'utilisation_above': {
      // The evaluator's integer maths: a 57 % alert says 57 %, never 56 (floating point's).
      const share = item.limitCents > 0 ? wholePercentOf(item.spentCents, item.limitCents) : 100;
      return `Card ${cardOf(item)} at ${share}% of its limit (${formatCents(item.spentCents)} of ${formatCents(item.limitCents)})`;
    }
    case 'balance_below':
      return `${item.subAccountName ?? 'A sub account'} balance under ${formatCents(item.thresholdCents)}`;
  }
}

const relative = new Intl.RelativeTimeFormat('en-US', { numeric: 'auto' });

/** "just now", "5 minutes ago", "yesterday"; a date and time after a week. */
export function relativeTime(iso: string, now = Date.now()): string {
  const seconds = Math.round((Date.parse(iso) - now) / 1000);
  const ago = -seconds;
  if (Number.isNaN(ago)) return iso;
  if (ago < 45) return 'just now';
  if (ago < 3600) return relative.format(-Math.max(1, Math.round(ago / 60)), 'minute');
  if (ago < 86_400) return relative.format(-Math.round(ago / 3600), 'hour');
  if (ago < 7 * 86_400) return relative.format(-Math.round(ago / 86_400), 'day');
  return formatShortDateTime(iso, now);
}

/** The bell's badge: nothing at 0, "99+" above 99. */
export function badgeText(unread: number): string | undefined {
  if (unread <= 0) return undefined;
  return unread > 99 ? '99+' : String(unread);
}
