import { z } from 'zod';
import { resourceIdSchema } from '../upstream/common';
import { holdsSecurityCode, MAX_VERSION, visibleNameSchema } from './names';
import { BULK_NOTES_MAX, distinctTags, MAX_MEMO, MAX_TAGS } from './notes-rules';

export { BULK_NOTES_MAX, distinctTags, MAX_MEMO, MAX_TAGS };

// What Card Console keeps about a transaction that the card service has no place for: a memo,
// an accounting category from the chart of accounts admins keep, tags, and whether it was
// reviewed. Kept beside the transaction index, in its SQL store (shared by replicas).

/** A line break or tab may stand in a memo; no other control character, no text-direction control. */
const memoUnsafe = /(?![\n\r\t])[\p{Cc}\p{Cs}]|[\u202A-\u202E\u2066-\u2069]/u;

/** A memo: free text up to 2,000 characters (line breaks kept, trailing space trimmed). */
export const memoSchema = z
  .string()
  .trim()
  .max(MAX_MEMO, `use at most ${MAX_MEMO.toLocaleString('en-US')} characters`)
  .refine((memo) => !memoUnsafe.test(memo), 'must not contain control or text-direction characters')
  .refine((memo) => !holdsSecurityCode(memo), 'must not hold a card’s security code');

/** A tag: 1–40 visible characters, one line; compared without regard to case. */
export const tagSchema = visibleNameSchema.pipe(z.string().max(40, 'use at most 40 characters'));

/** A transaction's review: `reviewed` names who and when. */
export const reviewSchema = z.discriminatedUnion('state', [
  z.object({ state: z.literal('unreviewed') }),
  z.object({ state: z.literal('reviewed'), by: z.string(), at: z.string() }),
]);

/** What Card Console holds about one transaction (version 0: nothing yet). */
export const notesSchema = z.object({
  transactionId: z.string(),
  memo: z.string(),
  /** An accounting category's id, or null for none. */
  categoryId: z.string().nullable(),
  tags: z.array(z.string()),
  review: reviewSchema,
  /** Goes up by one with every change: a change names the version it was made on. */
  version: z.number().int().nonnegative(),
  /** Who changed it last, and when (absent at version 0). */
  updatedBy: z.string().optional(),
  updatedAt: z.string().optional(),
});
export type Notes = z.infer<typeof notesSchema>;

/**
 * PATCH /api/transactions/:id/notes. `version`: the notes' version the person saw;
 * if it has moved, nothing is saved (409 `notes_changed`, with the notes as they are).
 * A reviewed transaction takes no change of memo, category or tags unless the same change
 * reopens it (`reviewed: false`); `reviewed: true` with other fields saves them and reviews.
 */
export const notesChangeSchema = z
  .strictObject({
    version: z.number().int().nonnegative().max(MAX_VERSION),
    memo: memoSchema.optional(),
    categoryId: resourceIdSchema.nullable().optional(),
    tags: z.array(tagSchema).max(MAX_TAGS, `use at most ${MAX_TAGS} tags`).optional(),
    reviewed: z.boolean().optional(),
  })
  .refine(
    (b) =>
      b.memo !== undefined ||
      b.categoryId !== undefined ||
      b.tags !== undefined ||
      b.reviewed !== undefined,
    { message: 'nothing to change' },
  );
export type NotesChange = z.input<typeof notesChangeSchema>;

/**
 * What one change does to many transactions: a category (or none), tags added, a memo written
 * (appended to each one's memo on a line of its own, or replacing it), reviewed or reopened.
 */
export const bulkActionShape = {
  categoryId: resourceIdSchema.nullable().optional(),
  addTags: z.array(tagSchema).min(1).max(MAX_TAGS, `use at most ${MAX_TAGS} tags`).optional(),
  memo: z
    .strictObject({
      text: memoSchema.pipe(z.string().min(1, 'type the memo')),
      mode: z.enum(['append', 'replace']),
    })
    .optional(),
  reviewed: z.boolean().optional(),
};
export const somethingToChange = (b: {
  categoryId?: unknown;
  addTags?: unknown;
  memo?: unknown;
  reviewed?: unknown;
}) =>
  b.categoryId !== undefined ||
  b.addTags !== undefined ||
  b.memo !== undefined ||
  b.reviewed !== undefined;

/** Why a row of a change of many was left as it was. */
export const bulkSkipReasons = [
  /** Reviewed: its notes are locked until reopened (or, to review, it already is). */
  'reviewed',
  /** To reopen, but it is not reviewed. */
  'not_reviewed',
  'too_many_tags',
  /** The memo appended would be longer than a memo may be. */
  'memo_too_long',
  /**
   * The memo appended would hold a card number: the row's memo ends in digits and the text
   * appended (on a line of its own) starts with them, and together they read as one.
   */
  'card_number',
  /** Likewise a card's security code: `cvv` ending the row's memo, the digits starting the text. */
  'security_code',
  'not_found',
  /**
   * A change of every matching row: changed by someone else after the filter was read, so that it
   * no longer matches (given a category while "no category" was asked for): left as they made it.
   */
  'no_longer_matching',
] as const;

export type BulkSkipReason = (typeof bulkSkipReasons)[number];

/**
 * POST /api/transactions/notes: one change to many transactions (a selection on the
 * list, each named by its sub account and id): `bulkActionShape`. Reviewed ones take no
 * category, tag or memo unless the change reopens them, and are not reviewed again; ones not
 * reviewed are not reopened: they are skipped and named, as are ones that would hold more than
 * MAX_TAGS tags or too long a memo.
 */
export const bulkNotesChangeSchema = z
  .strictObject({
    items: z
      .array(z.strictObject({ subAccountId: resourceIdSchema, id: resourceIdSchema }))
      .min(1, 'choose at least one transaction')
      .max(BULK_NOTES_MAX, `choose at most ${BULK_NOTES_MAX} transactions`),
    ...bulkActionShape,
  })
  .refine(somethingToChange, { message: 'nothing to change' });
export type BulkNotesChange = z.input<typeof bulkNotesChangeSchema>;

export const bulkNotesResultSchema = z.object({
  /** The notes of each transaction changed, as they are now. */
  changed: z.array(notesSchema),
  /** Left as they were, and why: reviewed (reopen first), too many tags, not in the index. */
  skipped: z.array(
    z.object({
      transactionId: z.string(),
      reason: z.enum(bulkSkipReasons),
    }),
  ),
});
export type BulkNotesResult = z.infer<typeof bulkNotesResultSchema>;

/** A receipt's largest size, and how many one transaction may have. */
export const RECEIPT_MAX_BYTES = 10 * 1024 * 1024;
export const RECEIPTS_PER_TRANSACTION = 10;

/** A receipt as lists show it (its bytes are read from its own address). */
export const receiptSchema = z.object({
  id: z.string(),
  transactionId: z.string(),
  fileName: z.string(),
  /** Decided from the file's bytes: image/jpeg, image/png, image/webp, image/heic, image/heif, application/pdf. */
  mediaType: z.string(),
  byteSize: z.number().int().positive(),
  sha256: z.string(),
  uploadedBy: z.string(),
  uploadedAt: z.string(),
});
export type Receipt = z.infer<typeof receiptSchema>;
export const receiptListSchema = z.object({ items: z.array(receiptSchema) });
