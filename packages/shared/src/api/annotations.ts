import { z } from 'zod';
import { resourceIdSchema } from '../upstream/common';
import { BULK_NOTES_MAX, distinctTags, MAX_TAGS } from './annotation-rules';
import { visibleNameSchema } from './names';

export { BULK_NOTES_MAX, distinctTags, MAX_TAGS };

// What Card Console keeps about a transaction that the card service has no place for: a memo,
// an accounting category from the chart of accounts admins keep, tags, and whether it was
// reviewed. Kept beside the transaction index, in its SQL store (shared by replicas).

/** A line break or tab may stand in a memo; no other control character, no text-direction control. */
const memoUnsafe = /(?![\n\r\t])[\p{Cc}\p{Cs}]|[\u202A-\u202E\u2066-\u2069]/u;

/** A memo: free text up to 2,000 characters (line breaks kept, trailing space trimmed). */
export const memoSchema = z
  .string()
  .trim()
  .max(2000, 'use at most 2,000 characters')
  .refine(
    (memo) => !memoUnsafe.test(memo),
    'must not contain control or text-direction characters',
  );

/** A tag: 1–40 visible characters, one line; compared without regard to case. */
export const tagSchema = visibleNameSchema.pipe(z.string().max(40, 'use at most 40 characters'));

/** An account code as a chart of accounts writes it: `6100`, `6100.20`, `SW-01`. */
export const accountCodeSchema = z
  .string()
  .trim()
  .min(1, 'give a code')
  .max(20, 'use at most 20 characters')
  .regex(
    /^[A-Za-z0-9](?:[A-Za-z0-9.\-/ ]*[A-Za-z0-9])?$/,
    'use letters, digits, ".", "-", "/" and spaces',
  );

/** One account of the chart of accounts: transactions are booked to it. */
export const accountingCategorySchema = z.object({
  id: z.string(),
  code: z.string(),
  name: z.string(),
  /** Archived: kept on the transactions that have it, offered for no new one. */
  archived: z.boolean(),
});
export type AccountingCategory = z.infer<typeof accountingCategorySchema>;

/** GET /api/accounting-categories: every category, archived ones included, by code. */
export const accountingCategoryListSchema = z.object({
  items: z.array(accountingCategorySchema),
});
export type AccountingCategoryList = z.infer<typeof accountingCategoryListSchema>;

/** POST /api/accounting-categories */
export const accountingCategoryCreateSchema = z.strictObject({
  code: accountCodeSchema,
  name: visibleNameSchema,
});
export type AccountingCategoryCreate = z.input<typeof accountingCategoryCreateSchema>;

/** PATCH /api/accounting-categories/:id: rename, recode, archive or restore. */
export const accountingCategoryPatchSchema = z
  .strictObject({
    code: accountCodeSchema.optional(),
    name: visibleNameSchema.optional(),
    archived: z.boolean().optional(),
  })
  .refine((b) => b.code !== undefined || b.name !== undefined || b.archived !== undefined, {
    message: 'nothing to change',
  });
export type AccountingCategoryPatch = z.input<typeof accountingCategoryPatchSchema>;

/** A transaction's review: `reviewed` names who and when. */
export const reviewSchema = z.discriminatedUnion('state', [
  z.object({ state: z.literal('unreviewed') }),
  z.object({ state: z.literal('reviewed'), by: z.string(), at: z.string() }),
]);

/** What Card Console holds about one transaction (version 0: nothing yet). */
export const annotationSchema = z.object({
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
export type Annotation = z.infer<typeof annotationSchema>;

/**
 * PATCH /api/transactions/:id/annotation. `version`: the annotation's version the person saw;
 * if it has moved, nothing is saved (409 `annotation_changed`, with the annotation as it is).
 * A reviewed transaction takes no change of memo, category or tags unless the same change
 * reopens it (`reviewed: false`); `reviewed: true` with other fields saves them and reviews.
 */
export const annotationChangeSchema = z
  .strictObject({
    version: z.number().int().nonnegative(),
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
export type AnnotationChange = z.input<typeof annotationChangeSchema>;

/** POST /api/accounting-categories/import: a CSV of the chart of accounts, at most this long. */
export const CHART_IMPORT_MAX_BYTES = 512 * 1024;
export const CHART_IMPORT_MAX_ROWS = 5000;

/** What an import did: categories added, renamed (same code, another name), left as they were. */
export const chartImportResultSchema = z.object({
  created: z.number().int().nonnegative(),
  renamed: z.number().int().nonnegative(),
  unchanged: z.number().int().nonnegative(),
  items: z.array(accountingCategorySchema),
});
export type ChartImportResult = z.infer<typeof chartImportResultSchema>;

/** A merchant rule: rows indexed from then on with this merchant text (any case) and no notes are booked to the category. */
export const merchantRuleSchema = z.object({
  id: z.string(),
  merchant: z.string(),
  categoryId: z.string(),
  createdBy: z.string(),
  createdAt: z.string(),
});
export type MerchantRule = z.infer<typeof merchantRuleSchema>;

/** GET /api/merchant-rules */
export const merchantRuleListSchema = z.object({ items: z.array(merchantRuleSchema) });

/** POST /api/merchant-rules: the merchant text as the transactions show it. */
export const merchantRuleCreateSchema = z.strictObject({
  merchant: z
    .string()
    .trim()
    .min(1, 'give the merchant')
    .max(200, 'use at most 200 characters')
    .refine((m) => !/[\p{Cc}\p{Cs}]/u.test(m), 'must not contain control characters'),
  categoryId: resourceIdSchema,
});
export type MerchantRuleCreate = z.input<typeof merchantRuleCreateSchema>;

/**
 * POST /api/transactions/annotations: one change to many transactions (a selection on the
 * list, each named by its sub account and id): a category (or none), tags added, reviewed or
 * reopened. Reviewed ones take no category or tag unless the change reopens them: they are
 * skipped and named, as are ones that would hold more than MAX_TAGS tags.
 */
export const bulkNotesChangeSchema = z
  .strictObject({
    items: z
      .array(z.strictObject({ subAccountId: resourceIdSchema, id: resourceIdSchema }))
      .min(1, 'choose at least one transaction')
      .max(BULK_NOTES_MAX, `choose at most ${BULK_NOTES_MAX} transactions`),
    categoryId: resourceIdSchema.nullable().optional(),
    addTags: z.array(tagSchema).min(1).max(MAX_TAGS, `use at most ${MAX_TAGS} tags`).optional(),
    reviewed: z.boolean().optional(),
  })
  .refine(
    (b) => b.categoryId !== undefined || b.addTags !== undefined || b.reviewed !== undefined,
    { message: 'nothing to change' },
  );
export type BulkNotesChange = z.input<typeof bulkNotesChangeSchema>;

export const bulkNotesResultSchema = z.object({
  /** The notes of each transaction changed, as they are now. */
  changed: z.array(annotationSchema),
  /** Left as they were, and why: reviewed (reopen first), too many tags, not in the index. */
  skipped: z.array(
    z.object({
      transactionId: z.string(),
      reason: z.enum(['reviewed', 'too_many_tags', 'not_found']),
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
