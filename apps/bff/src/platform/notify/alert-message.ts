import { formatCents } from '@card-console/shared/money';
import escapeHtml from 'escape-html';
import { z } from 'zod';
import { maskCardNumbers } from '../security/card-numbers';

// What an alert says, and the three ways it is written: plain text (email), HTML (email) and
// one line for chat webhooks. Every free-text field passes through the card-number masking
// before any renderer sees it, and every rendered output once more, so no card number leaves.

/** The kinds about one transaction; their message shape is the one webhooks first carried. */
export const transactionAlertKinds = [
  'transaction_declined',
  'transaction_over_amount',
  'transaction_new_category',
] as const;
export const alertKinds = [...transactionAlertKinds, 'card_utilisation', 'balance_below'] as const;
export type AlertKind = (typeof alertKinds)[number];

const kindLabels: Record<AlertKind, string> = {
  transaction_declined: 'Declined transaction',
  transaction_over_amount: 'Transaction over the amount',
  transaction_new_category: 'Merchant category new to the card',
  card_utilisation: 'Card utilisation',
  balance_below: 'Low balance',
};

const freeText = z.string().max(500);
const money = z.object({
  cents: z.number().int().refine(Number.isSafeInteger, 'a safe integer'),
  currency: z.string().regex(/^[A-Z]{3}$/),
});
const subAccount = z.object({ id: z.string().min(1).max(200), name: freeText });
const lastFour = z.string().regex(/^\d{4}$/);
/** A path into the app, made absolute with the public origin. */
const linkPath = z.string().regex(/^\/(?!\/)[^\s\\<>|"]*$/, 'a path starting with a single /');

/** An alert about one transaction. Its fields, in this order, are the webhook body's. */
const transactionAlertSchema = z.object({
  ruleName: freeText.min(1),
  /** Sent from the rule to show what it sends: an example, about nothing that happened. */
  test: z.literal(true).optional(),
  kind: z.enum(transactionAlertKinds),
  transactionId: z.string().min(1).max(200),
  subAccount,
  /** Absent when the transaction names no card the directory knows. */
  card: z.object({ name: freeText, lastFour }).optional(),
  /** The merchant as the card network wrote it ("TST* PINE TELECOM BOSTON MA"). */
  merchant: freeText,
  /** Its name, however written ("Pine Telecom"), when the index could tell. */
  merchantName: freeText.optional(),
  description: freeText.optional(),
  amount: money,
  status: z.string().min(1).max(50),
  declineReason: freeText.optional(),
  /** When the transaction happened, ISO 8601 in UTC. */
  occurredAt: z.iso.datetime(),
  /** `/transactions/…` or `/alerts`. */
  linkPath,
});

/** A card whose spend in its limit's current window reached a share of that limit. */
const utilisationAlertSchema = z.object({
  ruleName: freeText.min(1),
  test: z.literal(true).optional(),
  kind: z.literal('card_utilisation'),
  subAccount,
  /** `lastFour` is absent when the card directory does not know it. */
  card: z.object({ id: z.string().min(1).max(200), name: freeText, lastFour: lastFour.optional() }),
  /** The rule's share of the limit, in percent. */
  sharePercent: z.number().int().min(1).max(100),
  limit: money,
  /** Spent in the window so far. */
  spent: money,
  /** The limit's current window: its first and last day (inclusive) in its time zone. */
  window: z.object({ fromDay: z.iso.date(), toDay: z.iso.date(), timeZone: freeText.min(1) }),
  /** The card's page, `/cards/…`. */
  linkPath,
});

/** A sub account whose balance was under the rule's amount, once per UTC day. */
const balanceAlertSchema = z.object({
  ruleName: freeText.min(1),
  test: z.literal(true).optional(),
  kind: z.literal('balance_below'),
  subAccount,
  threshold: money,
  balance: money,
  /** The UTC day the balance was seen under the threshold. */
  day: z.iso.date(),
  /** The sub account's transactions, `/transactions?subAccountId=…`. */
  linkPath,
});

/** The alert as a rule produced it; the shape the webhook body carries under `alert`. */
export const alertMessageSchema = z.discriminatedUnion('kind', [
  transactionAlertSchema,
  utilisationAlertSchema,
  balanceAlertSchema,
]);
export type AlertMessage = z.infer<typeof alertMessageSchema>;
export type TransactionAlertMessage = z.infer<typeof transactionAlertSchema>;
export type UtilisationAlertMessage = z.infer<typeof utilisationAlertSchema>;
export type BalanceAlertMessage = z.infer<typeof balanceAlertSchema>;

/**
 * The alert checked against the schema and with every free-text field masked: what the
 * renderers and the webhook body use. Throws a ZodError for a malformed alert.
 */
export function safeAlert(input: AlertMessage): AlertMessage {
  const alert = alertMessageSchema.parse(input);
  const mask = maskCardNumbers;
  const common = {
    ruleName: mask(alert.ruleName),
    subAccount: { id: mask(alert.subAccount.id), name: mask(alert.subAccount.name) },
  };
  switch (alert.kind) {
    case 'card_utilisation':
      return {
        ...alert,
        ...common,
        card: {
          id: mask(alert.card.id),
          name: mask(alert.card.name),
          ...(alert.card.lastFour === undefined ? {} : { lastFour: alert.card.lastFour }),
        },
        window: { ...alert.window, timeZone: mask(alert.window.timeZone) },
      };
    case 'balance_below':
      return { ...alert, ...common };
    default:
      return {
        ...alert,
        ...common,
        transactionId: mask(alert.transactionId),
        ...(alert.card === undefined
          ? {}
          : { card: { name: mask(alert.card.name), lastFour: alert.card.lastFour } }),
        merchant: mask(alert.merchant),
        ...(alert.merchantName === undefined ? {} : { merchantName: mask(alert.merchantName) }),
        ...(alert.description === undefined ? {} : { description: mask(alert.description) }),
        status: mask(alert.status),
        ...(alert.declineReason === undefined ? {} : { declineReason: mask(alert.declineReason) }),
      };
  }
}

export function formatAmount({ cents, currency }: z.infer<typeof money>): string {
  if (currency === 'USD') return formatCents(cents);
  return new Intl.NumberFormat('en-US', { style: 'currency', currency }).format(cents / 100);
}

/** `2026-11-27 05:20 UTC`: one zone for every reader, whatever their mail client's. */
const formatWhen = (iso: string) =>
  `${new Date(iso).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/**
 * Line breaks and other controls folded to spaces: a subject, a first line, a chat line is one
 * line whatever a merchant's name holds. C0 and C1 controls (CR, LF, NEL), the line and paragraph
 * separators, and the bidirectional overrides and isolates that make a line read otherwise.
 */
export const oneLine = (text: string) =>
  text.replace(/[\p{Cc}\p{Zl}\p{Zp}\u202A-\u202E\u2066-\u2069]+/gu, ' ').trim();

/** The absolute link into the app; refuses a path that would leave the public origin. */
export function alertLink(alert: AlertMessage, publicOrigin: string): string {
  const origin = new URL(publicOrigin).origin;
  const link = new URL(alert.linkPath, origin);
  if (link.origin !== origin) throw new RangeError('the alert link leaves the public origin');
  return link.href;
}

/** A card as the UI shows it: its name and the last four digits, never more. */
const cardLabel = (card: { name: string; lastFour?: string | undefined }) =>
  card.lastFour === undefined ? card.name : `${card.name} (•••• ${card.lastFour})`;

/** What a test alert says first, in its body. */
export const TEST_NOTE =
  'This is a test, sent from the rule to show where its alerts go and what they say. Nothing happened: the figures are an example.';

/** The fields as label/value rows, in reading order; the text and HTML bodies list these. */
function rows(alert: AlertMessage): [string, string][] {
  const fields = kindRows(alert);
  return alert.test ? [['Test', TEST_NOTE], ...fields] : fields;
}

function kindRows(alert: AlertMessage): [string, string][] {
  switch (alert.kind) {
    case 'card_utilisation': {
      const w = alert.window;
      return [
        ['Rule', alert.ruleName],
        ['Spent', `${formatAmount(alert.spent)} of ${formatAmount(alert.limit)}`],
        ['Alerts at', `${alert.sharePercent}% of the limit`],
        ['Card', cardLabel(alert.card)],
        ['Sub account', alert.subAccount.name],
        ['Window', `${w.fromDay} to ${w.toDay} (${w.timeZone})`],
      ];
    }
    case 'balance_below':
      return [
        ['Rule', alert.ruleName],
        ['Balance', formatAmount(alert.balance)],
        ['Alerts under', formatAmount(alert.threshold)],
        ['Sub account', alert.subAccount.name],
        ['Day', `${alert.day} (UTC)`],
      ];
    default: {
      const out: [string, string][] = [
        ['Rule', alert.ruleName],
        ['Amount', formatAmount(alert.amount)],
        ['Merchant', alert.merchantName ?? alert.merchant],
        ...(alert.merchantName !== undefined && alert.merchantName !== alert.merchant
          ? ([['As the card network wrote it', alert.merchant]] as [string, string][])
          : []),
        ['Status', alert.status],
      ];
      if (alert.declineReason) out.push(['Decline reason', alert.declineReason]);
      if (alert.card) out.push(['Card', cardLabel(alert.card)]);
      out.push(['Sub account', alert.subAccount.name], ['When', formatWhen(alert.occurredAt)]);
      if (alert.description) out.push(['Description', alert.description]);
      return out;
    }
  }
}

/** The headline shared by the subject and the chat line. */
function headline(alert: AlertMessage): string {
  return alert.test ? `Test: ${kindHeadline(alert)}` : kindHeadline(alert);
}

function kindHeadline(alert: AlertMessage): string {
  const label = kindLabels[alert.kind];
  switch (alert.kind) {
    case 'card_utilisation': {
      const card =
        alert.card.lastFour === undefined ? alert.card.name : `card •••• ${alert.card.lastFour}`;
      return `${label} over ${alert.sharePercent}%: ${formatAmount(alert.spent)} of ${formatAmount(alert.limit)} spent on ${card}`;
    }
    case 'balance_below':
      return `${label}: ${formatAmount(alert.balance)} in ${alert.subAccount.name}, under ${formatAmount(alert.threshold)}`;
    default: {
      const card = alert.card ? ` on card •••• ${alert.card.lastFour}` : '';
      return `${label}: ${formatAmount(alert.amount)} at ${alert.merchantName ?? alert.merchant}${card}`;
    }
  }
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
  // The first line of the text and the subject: one line, whatever the merchant's name holds.
  const title = oneLine(headline(alert));
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
