// The month close's policy admins set (issue 46): from what size money moved needs a receipt,
// and which accounting categories' transactions need a memo. "Needs attention" counts what it
// still lacks (`attentionSchema`'s `missingReceipt` and `missingMemo`).
//
//   GET /api/close-policy → ClosePolicy (the default, version 0, until an admin sets one)
//   PUT /api/close-policy body ClosePolicyUpdate (the whole policy and the `version` it was made
//                         on; admins) → ClosePolicy; 409 `close_policy_changed` with `current`
//                         (the policy as it is) when it moved on since, and nothing is saved.
//                         A policy the same as the one in force is answered as it is: no new
//                         version, no audit record.
import { z } from 'zod';
import { resourceIdSchema } from '../upstream/common';
import { MAX_VERSION } from './names';

/** The largest receipt threshold a policy takes: $1,000,000,000.00, beyond any card's spend. */
export const RECEIPT_FROM_CENTS_MAX = 100_000_000_000;
/** The most accounting categories a policy may ask a memo for. */
export const MEMO_CATEGORIES_MAX = 200;

/** GET /api/close-policy: the policy in force (the default until an admin sets one). */
export const closePolicySchema = z.object({
  /** Money moved at or above this size (either sign) needs a receipt; null: no receipt policy. */
  receiptFromCents: z.number().int().nonnegative().nullable(),
  /** Accounting categories (ids) whose transactions need a memo. */
  memoCategoryIds: z.array(z.string()),
  /** Who set it and when; absent while it is the default. */
  updatedBy: z.string().optional(),
  updatedAt: z.string().optional(),
  /** Up by one with every change; 0 while it is the default. A change names the one it was made on. */
  version: z.number().int().nonnegative(),
});
export type ClosePolicy = z.infer<typeof closePolicySchema>;

/** PUT /api/close-policy: the whole policy, as it is to be, and the version it was made on. */
export const closePolicyUpdateSchema = z.strictObject({
  receiptFromCents: z
    .number()
    .int('must be a whole number of cents')
    .min(0, 'must not be negative')
    .max(RECEIPT_FROM_CENTS_MAX, 'must be at most $1,000,000,000.00')
    .nullable(),
  memoCategoryIds: z
    .array(resourceIdSchema)
    .max(MEMO_CATEGORIES_MAX, `name at most ${MEMO_CATEGORIES_MAX} categories`)
    .refine((ids) => new Set(ids).size === ids.length, 'name each category once'),
  version: z
    .number({ error: 'version must be the policy version you changed' })
    .int('version must be a whole number')
    .min(0, 'version must not be negative')
    .max(MAX_VERSION, 'version must be a version the policy can have'),
});
export type ClosePolicyUpdate = z.infer<typeof closePolicyUpdateSchema>;
