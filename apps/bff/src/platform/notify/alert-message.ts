import { formatCents } from '@card-console/shared/money';
import escapeHtml from 'escape-html';
import { z } from 'zod';
import { maskCardNumbers } from '../security/card-numbers';

// What an alert says, and the three ways it is written: plain text (email), HTML (email) and
// one line for chat webhooks. Every free-text field passes through the card-number masking
// before any renderer sees it, and every rendered output once more, so no card number leaves.

export const alertKinds = [
  'transaction_declined',
  'transaction_over_amount',
  'transaction_new_category',
] as const;
export type AlertKind = (typeof alertKinds)[number];

const kindLabels: Record<AlertKind, string> = {
  transaction_declined: 'Declined transaction',
  transaction_over_amount: 'Transaction over the amount',
  transaction_new_category: 'Merchant category new to the card',
};

const freeText = z.string().max(500);

/** The alert as a rule produced it; the shape the webhook body carries under `alert`. */
export const alertMessageSchema = z.object({
  ruleName: freeText.min(1),
  kind: z.enum(alertKinds),
  transactionId: z.string().min(1).max(200),
  subAccount: z.object({ id: z.string().min(1).max(200), name: freeText }),
  /** Absent when the transaction names no card the directory knows. */
  card: z.object({ name: freeText, lastFour: z.string().regex(/^\d{4}$/) }).optional(),
  merchant: freeText,
  description: freeText.optional(),
  amount: z.object({
    cents: z.number().int().refine(Number.isSafeInteger, 'a safe integer'),
    currency: z.string().regex(/^[A-Z]{3}$/),
  }),
  status: z.string().min(1).max(50),
  declineReason: freeText.optional(),
  /** When the transaction happened, ISO 8601 in UTC. */
  occurredAt: z.iso.datetime(),
  /** A path into the app (`/transactions/…`), made absolute with the public origin. */
  linkPath: z.string().regex(/^\/(?!\/)[^\s\\<>|"]*$/, 'a path starting with a single /'),
});
export type AlertMessage = z.infer<typeof alertMessageSchema>;

/**
 * The alert checked against the schema and with every free-text field masked: what the
 * renderers and the webhook body use. Throws a ZodError for a malformed alert.
 */
export function safeAlert(input: AlertMessage): AlertMessage {
  const alert = alertMessageSchema.parse(input);
  const mask = maskCardNumbers;
  return {
    ...alert,
    ruleName: mask(alert.ruleName),
    transactionId: mask(alert.transactionId),
    subAccount: { id: mask(alert.subAccount.id), name: mask(alert.subAccount.name) },
    ...(alert.card === undefined
      ? {}
      : { card: { name: mask(alert.card.name), lastFour: alert.card.lastFour } }),
    merchant: mask(alert.merchant),
    ...(alert.description === undefined ? {} : { description: mask(alert.description) }),
    status: mask(alert.status),
    ...(alert.declineReason === undefined ? {} : { declineReason: mask(alert.declineReason) }),
  };
}

export function formatAmount({ cents, currency }: AlertMessage['amount']): string {
  if (currency === 'USD') return formatCents(cents);
  return new Intl.NumberFormat('en-US', { style: 'currency', currency }).format(cents / 100);
}

/** `2026-11-27 05:20 UTC`: one zone for every reader, whatever their mail client's. */
const formatWhen = (iso: string) =>
  `${new Date(iso).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/** Line breaks and other controls folded to spaces: subjects and chat lines are one line. */
const oneLine = (text: string) =>
  // biome-ignore lint/suspicious/noControlCharactersInRegex: controls are what it removes.
  text.replace(/[\u0000-\u001F\u007F-\u009F\u2028\u2029]+/g, ' ').trim();

/** The absolute link into the app; refuses a path that would leave the public origin. */
export function alertLink(alert: AlertMessage, publicOrigin: string): string {
  const origin = new URL(publicOrigin).origin;
  const link = new URL(alert.linkPath, origin);
  if (link.origin !== origin) throw new RangeError('the alert link leaves the public origin');
  return link.href;
}

/** The fields as label/value rows, in reading order; the text and HTML bodies list these. */
function rows(alert: AlertMessage): [string, string][] {
  const out: [string, string][] = [
    ['Rule', alert.ruleName],
    ['Amount', formatAmount(alert.amount)],
    ['Merchant', alert.merchant],
    ['Status', alert.status],
  ];
  if (alert.declineReason) out.push(['Decline reason', alert.declineReason]);
  if (alert.card) out.push(['Card', `${alert.card.name} (•••• ${alert.card.lastFour})`]);
  out.push(['Sub account', alert.subAccount.name], ['When', formatWhen(alert.occurredAt)]);
  if (alert.description) out.push(['Description', alert.description]);
  return out;
}

/** The headline shared by the subject and the chat line. */
function headline(alert: AlertMessage): string {
  const card = alert.card ? ` on card •••• ${alert.card.lastFour}` : '';
  return `${kindLabels[alert.kind]}: ${formatAmount(alert.amount)} at ${alert.merchant}${card}`;
}

export interface RenderedAlert {
  subject: string;
  text: string;
  html: string;
  /** One line for Slack-compatible webhooks (`text`): `&`, `<` and `>` escaped as Slack asks. */
  chatText: string;
}

/** Every rendering of one alert. `publicOrigin` makes the link absolute. */
export function renderAlert(input: AlertMessage, publicOrigin: string): RenderedAlert {
  const alert = safeAlert(input);
  const link = alertLink(alert, publicOrigin);
  const title = headline(alert);
  const fields = rows(alert);

  const text = [
    title,
    '',
    ...fields.map(([label, value]) => `${label}: ${oneLine(value)}`),
    '',
    `Open in Card Console: ${link}`,
    '',
  ].join('\n');

  const html = [
    '<!doctype html><html><body style="font-family:sans-serif">',
    `<h1 style="font-size:18px">${escapeHtml(title)}</h1>`,
    '<table cellpadding="4">',
    ...fields.map(
      ([label, value]) =>
        `<tr><th align="left">${escapeHtml(label)}</th><td>${escapeHtml(value)}</td></tr>`,
    ),
    '</table>',
    `<p><a href="${escapeHtml(link)}">Open in Card Console</a></p>`,
    '</body></html>',
  ].join('\n');

  const slackEscape = (s: string) =>
    s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const chatText = `${slackEscape(oneLine(`${title} (rule: ${alert.ruleName}, ${alert.subAccount.name})`))} <${slackEscape(link)}|Open>`;

  // Once more over each whole output: two masked fields side by side must not make a number.
  return {
    subject: maskCardNumbers(oneLine(`[Card Console] ${title}`)),
    text: maskCardNumbers(text),
    html: maskCardNumbers(html),
    chatText: maskCardNumbers(chatText),
  };
}
