import {
  accountingCategoryCreateSchema,
  accountingCategoryListSchema,
  accountingCategoryPatchSchema,
  accountingCategorySchema,
  annotationChangeSchema,
  annotationSchema,
  CHART_IMPORT_MAX_BYTES,
  chartImportResultSchema,
} from '@card-console/shared/api/annotations';
import { resourceIdSchema } from '@card-console/shared/upstream/common';
import { z } from 'zod';
import { admins, defineFeature, everyone } from '../../core/endpoint';
import { who } from '../../platform/sessions/who';
import { type AnnotationsDeps, createAnnotationsService } from './annotations-service';

const transactionId = { id: resourceIdSchema };

/**
 * Transaction notes (memo, accounting category, tags, review), which finance and admins keep,
 * and the chart of accounts, which admins keep.
 */
export const annotationsFeature = defineFeature(
  'annotations',
  (deps: AnnotationsDeps) => createAnnotationsService(deps),
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
