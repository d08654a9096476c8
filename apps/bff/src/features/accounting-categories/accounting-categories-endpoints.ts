import { CHART_IMPORT_MAX_BYTES } from '@card-console/shared/api/accounting-categories';
import { defineFeature } from '../../core/endpoint';
import { who } from '../../platform/sessions/who';
import {
  type AccountingCategoriesDeps,
  createAccountingCategoriesService,
} from './accounting-categories-service';

/**
 * The chart of accounts (the accounting categories notes book to) and the merchant rules that
 * book new transactions to it: everyone reads them, admins keep them.
 */
export const accountingCategoriesFeature = defineFeature(
  'accounting-categories',
  (deps: AccountingCategoriesDeps) => createAccountingCategoriesService(deps),
  (endpoint) => [
    endpoint('merchantRules.list', {
      summary: 'The merchant rules: which merchant books new transactions to which category',
      example: '/api/merchant-rules',
      handler: async ({ services }) => ({ items: await services.rules() }),
    }),
    endpoint('merchantRules.create', {
      summary: "Book a merchant's new transactions to a category (never over notes a person wrote)",
      attempted: 'merchantRules.change',
      example: '/api/merchant-rules',
      status: 201,
      handler: ({ req, services, body }) => services.createRule(who(req), body),
    }),
    endpoint('merchantRules.remove', {
      summary: 'Remove a merchant rule (the notes it made stay)',
      attempted: 'merchantRules.change',
      example: '/api/merchant-rules/{ruleId}',
      handler: ({ req, services, params }) => services.deleteRule(who(req), params.id),
    }),
    endpoint('accountingCategories.list', {
      summary: 'The chart of accounts: every accounting category, archived ones included, by code',
      example: '/api/accounting-categories',
      handler: async ({ services }) => ({ items: await services.categories() }),
    }),
    endpoint('accountingCategories.create', {
      summary: 'Add an accounting category (its code unique, case aside)',
      attempted: 'categories.change',
      example: '/api/accounting-categories',
      status: 201,
      handler: ({ req, services, body }) => services.createCategory(who(req), body),
    }),
    endpoint('accountingCategories.import', {
      summary:
        'Import a chart of accounts from CSV (QuickBooks, Xero or code,name): codes added, names updated, all or nothing',
      attempted: 'categories.change',
      example: '/api/accounting-categories/import',
      textBody: { type: 'text/csv', limitBytes: CHART_IMPORT_MAX_BYTES },
      handler: ({ req, services, body }) => services.importCategories(who(req), body),
    }),
    endpoint('accountingCategories.update', {
      summary: 'Rename, recode, archive or restore an accounting category',
      attempted: 'categories.change',
      example: '/api/accounting-categories/{categoryId}',
      handler: ({ req, services, params, body }) =>
        services.updateCategory(who(req), params.id, body),
    }),
  ],
);
