// The receipt inbox (issue 47, decision 0118): receipts that arrive in a pile, by upload or by a
// person's private forwarding address, are read (a PDF by its text, a picture by OCR) and find
// their own transaction in the index. Each person has their own inbox.
import { z } from 'zod';
import { resourceIdSchema } from '../upstream/common';

/**
 * Where an inbox item stands:
 * - `reading`: waiting for, or in, the reader (PDF text or OCR);
 * - `suggested`: read, with transactions that may be its own, best first, for the person to
 *   confirm (never attached without them);
 * - `waiting`: read (or not readable), and no transaction fits yet: it stays until the person
 *   picks one or discards it (it is matched again when the index has new rows);
 * - `attached`: it is a receipt of a transaction now (automatically when certain, or confirmed).
 */
export const inboxStatuses = ['reading', 'suggested', 'waiting', 'attached'] as const;
export type InboxStatus = (typeof inboxStatuses)[number];

/** What was read off the receipt; each field absent when it could not be read. */
export const inboxReadSchema = z.object({
  /** The receipt's total (not a subtotal, tax or tip line), in cents. */
  totalCents: z.number().int().positive().optional(),
  /** The receipt's date, YYYY-MM-DD. */
  date: z.string().optional(),
  /** The merchant as the receipt's header writes it. */
  merchant: z.string().optional(),
  /** Why nothing could be read: a picture type the reader does not take, a damaged file, a budget. */
  problem: z.enum(['unreadable', 'too_slow', 'too_large']).optional(),
});
export type InboxRead = z.infer<typeof inboxReadSchema>;

/** Why a transaction is suggested, each part a word the screen shows. */
export const matchReasons = [
  'amount',
  'amount_with_tip',
  'date',
  'date_near',
  'merchant',
  'no_receipt',
] as const;
export type MatchReason = (typeof matchReasons)[number];

export const inboxSuggestionSchema = z.object({
  subAccountId: z.string(),
  transactionId: z.string(),
  /** The transaction as its list shows it. */
  description: z.string(),
  merchant: z.string().optional(),
  at: z.string(),
  amountCents: z.number().int(),
  /** 0–1: how sure the match is. */
  score: z.number().min(0).max(1),
  reasons: z.array(z.enum(matchReasons)),
});
export type InboxSuggestion = z.infer<typeof inboxSuggestionSchema>;

export const inboxItemSchema = z.object({
  id: z.string(),
  fileName: z.string(),
  mediaType: z.string(),
  byteSize: z.number().int().positive(),
  receivedAt: z.string(),
  via: z.enum(['upload', 'email']),
  status: z.enum(inboxStatuses),
  read: inboxReadSchema.optional(),
  /** Best first; empty unless `suggested`. */
  suggestions: z.array(inboxSuggestionSchema),
  /** Where it went, once `attached`; `automatic` when the match was certain. */
  attached: z
    .object({
      subAccountId: z.string(),
      transactionId: z.string(),
      receiptId: z.string(),
      /** The transaction as it was when attached: its description, date and amount. */
      description: z.string(),
      transactionAt: z.string(),
      amountCents: z.number().int(),
      automatic: z.boolean(),
      at: z.string(),
    })
    .optional(),
});
export type InboxItem = z.infer<typeof inboxItemSchema>;

/** GET /api/receipt-inbox: the person's inbox, newest first; attached items for 30 days. */
export const inboxListSchema = z.object({
  items: z.array(inboxItemSchema),
  counts: z.object({
    reading: z.number().int().nonnegative(),
    suggested: z.number().int().nonnegative(),
    waiting: z.number().int().nonnegative(),
    attached: z.number().int().nonnegative(),
  }),
});
export type InboxList = z.infer<typeof inboxListSchema>;

/** Items an inbox holds at most, not counting attached ones (an upload past it: 409). */
export const INBOX_MAX_ITEMS = 500;
/** How long an attached item stays listed. */
export const INBOX_ATTACHED_DAYS = 30;

/** POST /api/receipt-inbox/:id/attach: the item becomes a receipt of this transaction. */
export const inboxAttachSchema = z.strictObject({
  subAccountId: resourceIdSchema,
  transactionId: resourceIdSchema,
});
export type InboxAttach = z.infer<typeof inboxAttachSchema>;

/** GET and POST /api/receipt-inbox/address: the person's forwarding address. */
export const inboxAddressSchema = z.object({
  /** False when the operator has not set up receiving mail (RECEIPT_MAIL_DOMAIN unset). */
  enabled: z.boolean(),
  /** `receipts+<secret>@<domain>`; a new one replaces it, and mail to the old one is refused. */
  address: z.string().optional(),
});
export type InboxAddress = z.infer<typeof inboxAddressSchema>;

/**
 * Merchant categories where a receipt and its card amount may differ by a tip (ISO 18245:
 * restaurants, bars, fast food, taxis, barbers and beauty, spas): the slip is printed before
 * the tip is written on it, or the card shows the amount before the tip until it settles.
 */
export const TIPPING_CATEGORY_CODES: readonly string[] = [
  '5812',
  '5813',
  '5814',
  '4121',
  '7230',
  '7298',
];
/** How far a tipping merchant's card amount may be from the receipt's total: 30% either way. */
export const TIP_MARGIN = 0.3;
/** A transaction posts up to this many days after the receipt's date (posting lag)… */
export const POSTING_LAG_DAYS = 5;
/** …or a day before it (a receipt dated in the shop's time zone, the card's in UTC). */
export const EARLY_POSTING_DAYS = 1;
