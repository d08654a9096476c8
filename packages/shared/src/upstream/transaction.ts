import { z } from 'zod';
import { cursorSchema, resourceIdSchema, unixMsStringSchema } from './common';
import { transactionStatuses } from './enums';

export { type TransactionStatus, transactionStatuses } from './enums';

export const transactionStatusSchema = z.enum(transactionStatuses);

/** A transaction as the service returns it. Unknown fields are tolerated and dropped. */
export const upstreamTransactionSchema = z.object({
  id: z.string().min(1),
  date: z.iso.datetime({ offset: true }),
  description: z.string(),
  amountCents: z.number().int(),
  status: transactionStatusSchema,
  referenceNumber: z.string(),
  // Listed as required, but exists only for card transactions.
  authorizedAt: z.iso.datetime({ offset: true }).optional(),
  createdAt: z.iso.datetime({ offset: true }).optional(),
  merchantData: z.object({ description: z.string(), categoryCode: z.string() }).optional(),
  cardId: z.string().optional(),
  originalCurrency: z
    .object({
      code: z.string().optional(),
      amountCents: z.number().int().optional(),
      conversionRate: z.number().optional(),
    })
    .optional(),
  declineReason: z.string().optional(),
  subAccountId: z.string().optional(),
});
export type UpstreamTransaction = z.infer<typeof upstreamTransactionSchema>;

/** GET /transaction query. */
export const upstreamTransactionListQuerySchema = z
  .strictObject({
    subAccountId: resourceIdSchema,
    from_date: unixMsStringSchema.optional(),
    to_date: unixMsStringSchema.optional(),
    status: transactionStatusSchema.optional(),
    card_id: resourceIdSchema.optional(),
    cursor: cursorSchema.optional(),
  })
  .refine((q) => q.from_date === undefined || q.to_date === undefined || q.from_date <= q.to_date, {
    message: 'from_date must not be after to_date',
    path: ['from_date'],
  });
export type UpstreamTransactionListQuery = z.input<typeof upstreamTransactionListQuerySchema>;
