import { z } from 'zod';
import { isIsoDay } from '../dates';
import { cursorSchema, resourceIdSchema, unixMsStringSchema } from '../upstream/common';
import { transactionStatusSchema } from '../upstream/transaction';
import { pageSchema } from './error';

export const transactionSchema = z.object({
  id: z.string(),
  date: z.string(),
  description: z.string(),
  amountCents: z.number().int(),
  status: transactionStatusSchema,
  referenceNumber: z.string(),
  authorizedAt: z.string().optional(),
  createdAt: z.string().optional(),
  merchant: z
    .object({
      description: z.string(),
      categoryCode: z.string(),
      /** The ISO 18245 category's name for the code; absent when the code is not a known one. */
      categoryName: z.string().optional(),
    })
    .optional(),
  cardId: z.string().optional(),
  /**
   * The paying card as the BFF's card directory knows it (joined, never a per-row upstream
   * call). Absent when the directory cannot name the card: show `cardId` then.
   */
  card: z.object({ name: z.string(), last4: z.string().optional() }).optional(),
  originalCurrency: z
    .object({
      code: z.string().optional(),
      amountCents: z.number().int().optional(),
      conversionRate: z.number().optional(),
    })
    .optional(),
  declineReason: z.string().optional(),
});
export type Transaction = z.infer<typeof transactionSchema>;

const transactionFilterShape = {
  subAccountId: resourceIdSchema,
  from: unixMsStringSchema.optional(),
  to: unixMsStringSchema.optional(),
  status: transactionStatusSchema.optional(),
  cardId: resourceIdSchema.optional(),
};

const fromNotAfterTo = (q: { from?: number; to?: number }) =>
  q.from === undefined || q.to === undefined || q.from <= q.to;

/** GET /api/transactions */
export const transactionListQuerySchema = z
  .strictObject({ ...transactionFilterShape, cursor: cursorSchema.optional() })
  .refine(fromNotAfterTo, { message: '"from" must not be after "to"', path: ['from'] });
export type TransactionListQuery = z.input<typeof transactionListQuerySchema>;

/** Whether the runtime's time-zone data knows the zone (IANA names, `UTC`; not offsets). */
export function isKnownTimeZone(value: string): boolean {
  // Node 24's Intl also takes offsets ("+05:00", ECMA-402 2024): a name starts with a letter.
  if (!/^[A-Za-z]/.test(value)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

/** An IANA time zone such as `America/New_York`, as the browser reports the person's own. */
export const timeZoneSchema = z
  .string()
  .max(64)
  .refine(isKnownTimeZone, 'must be an IANA time zone such as "America/New_York" or "UTC"');

/** A calendar day, `YYYY-MM-DD`, that exists. */
export const isoDaySchema = z.string().refine(isIsoDay, 'must be a calendar day as YYYY-MM-DD');

/**
 * GET /api/transactions/export.csv: the list's filter, plus how the file is written for the
 * person. `tz` (default UTC) is the zone the `date` and `authorized at` cells are written in,
 * with their offset. `fromDay`/`toDay` are the person's days the file is named after; absent,
 * they are the days `from` and `to` fall on in `tz` (`to` absent: the export's day).
 */
export const transactionExportQuerySchema = z
  .strictObject({
    ...transactionFilterShape,
    tz: timeZoneSchema.optional(),
    fromDay: isoDaySchema.optional(),
    toDay: isoDaySchema.optional(),
  })
  .refine(fromNotAfterTo, { message: '"from" must not be after "to"', path: ['from'] })
  .refine((q) => q.fromDay === undefined || q.toDay === undefined || q.fromDay <= q.toDay, {
    message: '"fromDay" must not be after "toDay"',
    path: ['fromDay'],
  });
export type TransactionExportQuery = z.input<typeof transactionExportQuerySchema>;

export const transactionPageSchema = pageSchema(transactionSchema);
export type TransactionPage = z.infer<typeof transactionPageSchema>;

/**
 * A request id as the BFF keeps it (`X-Request-Id`: its own UUID, or a caller's id of this
 * shape); an export's receipt is looked up by it.
 */
export const exportRequestIdSchema = z.string().regex(/^[A-Za-z0-9._:-]{8,128}$/);

/** GET /api/transactions/export-receipts/:requestId — what a finished export produced. */
export const exportReceiptSchema = z.object({
  /** Transaction rows, the header row not counted. */
  rows: z.number().int().nonnegative(),
  /** CSV bytes generated, header included, before any content-encoding. */
  bytes: z.number().int().nonnegative(),
});
export type ExportReceipt = z.infer<typeof exportReceiptSchema>;
