// The chart of accounts admins keep (the accounting categories a transaction's notes book to)
// and the merchant rules that book new transactions to it.
import { z } from 'zod';
import { resourceIdSchema } from '../upstream/common';
import { visibleNameSchema } from './names';

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
