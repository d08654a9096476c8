// The two digests' emails: a digest rule's alerts of one UTC day, and the alerts a recipient's
// hourly cap kept from being emailed one by one (email-cap.ts). A line per alert, one line each
// whatever the merchant's name holds, no card number (payloads are stored masked; the email
// sender masks the whole message once more).
import { formatCents } from '@card-console/shared/money';
import escapeHtml from 'escape-html';
import { oneLine } from '../../platform/notify/alert-message';
import type { AlertPayload } from './alert-evaluator';
import { deliveryKey } from './delivery-plan';

export interface DigestAlert {
  raisedAt: string;
  payload: AlertPayload;
}

export interface DigestEmail {
  subject: string;
  text: string;
  html: string;
}

/** One line of a digest: what the alert says, on one line. */
export const digestLine = (a: DigestAlert) => oneLine(digestWords(a));

function digestWords(a: DigestAlert): string {
  const p = a.payload;
  const when = `${a.raisedAt.slice(11, 16)} UTC`;
  const card = p.card?.lastFour ? ` on card •••• ${p.card.lastFour}` : '';
  // Figures as every screen writes them (a balance below zero keeps its minus); a transaction's
  // amount by its size, as the alert line says what it was (a charge, a decline).
  const money = formatCents;
  switch (p.kind) {
    case 'utilisation_above':
      return `${when}: ${money(p.spentCents)} of ${money(p.limitCents)} spent (over ${p.sharePercent}%)${card}`;
    case 'balance_below':
      return `${when}: balance ${money(p.balanceCents)}, under ${money(p.thresholdCents)}`;
    default: {
      const t = p.transaction;
      return `${when}: ${money(Math.abs(t.amountCents))} at ${t.merchantName ?? t.merchant ?? t.description} (${t.status})${card}`;
    }
  }
}

const plural = (n: number) => `${n} alert${n === 1 ? '' : 's'}`;

function email(subject: string, heading: string, intro: string[], lines: string[]): DigestEmail {
  return {
    subject,
    text: [heading, '', ...intro, ...(intro.length ? [''] : []), ...lines, ''].join('\n'),
    html: [
      '<!doctype html><html><body style="font-family:sans-serif">',
      `<h1 style="font-size:18px">${escapeHtml(heading)}</h1>`,
      ...intro.map((p) => `<p>${escapeHtml(p)}</p>`),
      '<ul>',
      ...lines.map((line) => `<li>${escapeHtml(line)}</li>`),
      '</ul></body></html>',
    ].join('\n'),
  };
}

/** A digest rule's alerts of `day`. */
export function ruleDigestEmail(day: string, alerts: readonly DigestAlert[]): DigestEmail {
  const ruleName = oneLine(alerts[0]?.payload.ruleName ?? 'alert rule');
  return email(
    `[Card Console] ${ruleName}: ${plural(alerts.length)} on ${day}`,
    `${ruleName}, ${day} (UTC)`,
    [],
    alerts.map(digestLine),
  );
}

/** The key of `recipient`'s digest of the emails folded on `day` (one per recipient and day). */
export const foldedDigestKey = (day: string, recipient: string) =>
  deliveryKey(`folded:${day}`, 'digest', recipient);

/** The day a folded digest's key names, or undefined for any other key. */
export const foldedDigestDay = (key: string) =>
  /^folded:(\d{4}-\d{2}-\d{2})\|digest\|/.exec(key)?.[1];

/** The alerts a recipient's hourly cap folded on `day`, each under the name of its rule. */
export function foldedDigestEmail(day: string, alerts: readonly DigestAlert[]): DigestEmail {
  return email(
    `[Card Console] ${plural(alerts.length)} on ${day} not emailed one by one`,
    `${plural(alerts.length)}, ${day} (UTC)`,
    [
      'Your rules raised more alerts in an hour than are emailed one by one; these were kept for this digest. All of them are in your inbox in Card Console.',
    ],
    alerts.map((a) => oneLine(`${a.payload.ruleName} · ${digestWords(a)}`)),
  );
}
