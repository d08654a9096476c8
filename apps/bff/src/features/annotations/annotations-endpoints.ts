import {
  accountingCategoryCreateSchema,
  accountingCategoryListSchema,
  accountingCategoryPatchSchema,
  accountingCategorySchema,
  annotationChangeSchema,
  annotationSchema,
  bulkNotesChangeSchema,
  bulkNotesResultSchema,
  CHART_IMPORT_MAX_BYTES,
  chartImportResultSchema,
  merchantRuleCreateSchema,
  merchantRuleListSchema,
  merchantRuleSchema,
  RECEIPT_MAX_BYTES,
  receiptListSchema,
  receiptSchema,
} from '@card-console/shared/api/annotations';
import { resourceIdSchema } from '@card-console/shared/upstream/common';
import { z } from 'zod';
import { admins, defineFeature, everyone } from '../../core/endpoint';
import { who } from '../../platform/sessions/who';
import { type AnnotationsDeps, createAnnotationsService } from './annotations-service';
import { createReceiptsService, FILE_NAME_HEADER } from './receipts-service';

/** Receipts being read at once in one process; beyond that an upload waits its turn (503). */
const UPLOADS_AT_ONCE = 4;
const receiptParams = { id: resourceIdSchema, receiptId: resourceIdSchema };

const transactionId = { id: resourceIdSchema };

/**
 * Transaction notes (memo, accounting category, tags, review), which finance and admins keep,
 * and the chart of accounts, which admins keep.
 */
export const annotationsFeature = defineFeature(
  'annotations',
  (deps: AnnotationsDeps) => ({
    ...createAnnotationsService(deps),
    receipts: createReceiptsService(deps),
  }),
  (endpoint) => [
    endpoint({
      method: 'GET',
      path: '/transactions/:id/annotation',
      summary: "A transaction's notes: memo, accounting category, tags, review, version",
      access: everyone,
      mutation: false,
      example: '/api/transactions/{transactionId}/annotation',
      params: transactionId,
      response: annotationSchema,
      handler: ({ req, services, params }) => services.get(who(req), params.id),
    }),
    endpoint({
      method: 'PATCH',
      path: '/transactions/:id/annotation',
      summary:
        "Change a transaction's notes or review it, refused with the current notes if they changed or it is reviewed",
      access: everyone,
      mutation: true,
      attempted: 'transaction.annotate',
      example: '/api/transactions/{transactionId}/annotation',
      params: transactionId,
      body: annotationChangeSchema,
      response: annotationSchema,
      handler: ({ req, services, params, body }) => services.change(who(req), params.id, body),
    }),
    endpoint({
      method: 'GET',
      path: '/transactions/:id/receipts',
      summary: "A transaction's receipts: name, type, size, who attached them and when",
      access: everyone,
      mutation: false,
      example: '/api/transactions/{transactionId}/receipts',
      params: transactionId,
      response: receiptListSchema,
      handler: async ({ req, services, params }) => ({
        items: await services.receipts.list(who(req), params.id),
      }),
    }),
    endpoint({
      method: 'POST',
      path: '/transactions/:id/receipts',
      summary:
        'Attach a receipt (JPEG, PNG, WebP, HEIC or PDF up to 10 MB, decided by its bytes; the name in X-File-Name)',
      access: everyone,
      mutation: true,
      attempted: 'transaction.annotate',
      example: '/api/transactions/{transactionId}/receipts',
      params: transactionId,
      fileBody: { limitBytes: RECEIPT_MAX_BYTES, atOnce: UPLOADS_AT_ONCE },
      body: z.instanceof(Buffer),
      response: receiptSchema,
      status: 201,
      handler: ({ req, services, params, body }) =>
        services.receipts.add(who(req), params.id, body, req.get(FILE_NAME_HEADER)),
    }),
    endpoint({
      method: 'GET',
      path: '/transactions/:id/receipts/:receiptId',
      summary: 'A receipt’s file: a picture shown inline or a PDF downloaded, never run',
      access: everyone,
      mutation: false,
      example: '/api/transactions/{transactionId}/receipts/{receiptId}',
      params: receiptParams,
      response: 'stream',
      handler: ({ res, services, params }) =>
        services.receipts.send(res, params.id, params.receiptId),
    }),
    endpoint({
      method: 'DELETE',
      path: '/transactions/:id/receipts/:receiptId',
      summary: 'Remove a receipt (not once the transaction is reviewed)',
      access: everyone,
      mutation: true,
      attempted: 'transaction.annotate',
      example: '/api/transactions/{transactionId}/receipts/{receiptId}',
      params: receiptParams,
      response: z.undefined(),
      handler: ({ req, services, params }) =>
        services.receipts.remove(who(req), params.id, params.receiptId),
    }),
    endpoint({
      method: 'POST',
      path: '/transactions/annotations',
      summary:
        'One change to a selection of transactions: a category, tags added, reviewed or reopened (reviewed ones skipped unless reopened)',
      access: everyone,
      mutation: true,
      attempted: 'transaction.annotate',
      example: '/api/transactions/annotations',
      // 500 rows, each its sub account's and transaction's ids.
      jsonLimitBytes: 256 * 1024,
      body: bulkNotesChangeSchema,
      response: bulkNotesResultSchema,
      handler: ({ req, services, body }) => services.changeMany(who(req), body),
    }),
    endpoint({
      method: 'GET',
      path: '/merchant-rules',
      summary: 'The merchant rules: which merchant books new transactions to which category',
      access: everyone,
      mutation: false,
      example: '/api/merchant-rules',
      response: merchantRuleListSchema,
      handler: async ({ services }) => ({ items: await services.rules() }),
    }),
    endpoint({
      method: 'POST',
      path: '/merchant-rules',
      summary: "Book a merchant's new transactions to a category (never over notes a person wrote)",
      access: admins,
      mutation: true,
      attempted: 'merchantRules.change',
      example: '/api/merchant-rules',
      body: merchantRuleCreateSchema,
      response: merchantRuleSchema,
      status: 201,
      handler: ({ req, services, body }) => services.createRule(who(req), body),
    }),
    endpoint({
      method: 'DELETE',
      path: '/merchant-rules/:id',
      summary: 'Remove a merchant rule (the notes it made stay)',
      access: admins,
      mutation: true,
      attempted: 'merchantRules.change',
      example: '/api/merchant-rules/{ruleId}',
      params: { id: resourceIdSchema },
      response: z.undefined(),
      handler: ({ req, services, params }) => services.deleteRule(who(req), params.id),
    }),
    endpoint({
      method: 'GET',
      path: '/accounting-categories',
      summary: 'The chart of accounts: every accounting category, archived ones included, by code',
      access: everyone,
      mutation: false,
      example: '/api/accounting-categories',
      response: accountingCategoryListSchema,
      handler: async ({ services }) => ({ items: await services.categories() }),
    }),
    endpoint({
      method: 'POST',
      path: '/accounting-categories',
      summary: 'Add an accounting category (its code unique, case aside)',
      access: admins,
      mutation: true,
      attempted: 'categories.change',
      example: '/api/accounting-categories',
      body: accountingCategoryCreateSchema,
      response: accountingCategorySchema,
      status: 201,
      handler: ({ req, services, body }) => services.createCategory(who(req), body),
    }),
    endpoint({
      method: 'POST',
      path: '/accounting-categories/import',
      summary:
        'Import a chart of accounts from CSV (QuickBooks, Xero or code,name): codes added, names updated, all or nothing',
      access: admins,
      mutation: true,
      attempted: 'categories.change',
      example: '/api/accounting-categories/import',
      textBody: { type: 'text/csv', limitBytes: CHART_IMPORT_MAX_BYTES },
      body: z.string(),
      response: chartImportResultSchema,
      handler: ({ req, services, body }) => services.importCategories(who(req), body),
    }),
    endpoint({
      method: 'PATCH',
      path: '/accounting-categories/:id',
      summary: 'Rename, recode, archive or restore an accounting category',
      access: admins,
      mutation: true,
      attempted: 'categories.change',
      example: '/api/accounting-categories/{categoryId}',
      params: { id: resourceIdSchema },
      body: accountingCategoryPatchSchema,
      response: accountingCategorySchema,
      handler: ({ req, services, params, body }) =>
        services.updateCategory(who(req), params.id, body),
    }),
  ],
);
