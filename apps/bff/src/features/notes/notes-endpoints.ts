import { RECEIPT_MAX_BYTES } from '@card-console/shared/api/notes';
import { z } from 'zod';
import { defineFeature } from '../../core/endpoint';
import { who } from '../../platform/sessions/who';
import { type IndexSearchDeps, indexSearchOf } from '../transaction-index';
import { createNotesService, type NotesDeps } from './notes-service';
import { createReceiptsService, FILE_NAME_HEADER } from './receipts-service';

/** Receipts being read at once in one process; beyond that an upload waits its turn (503). */
const UPLOADS_AT_ONCE = 4;

/**
 * Transaction notes (memo, accounting category, tags, review) and receipts, which finance and
 * admins keep. The chart of accounts they book to is its own feature (`accounting-categories`).
 */
export const notesFeature = defineFeature(
  'notes',
  (deps: NotesDeps & IndexSearchDeps) => ({
    ...createNotesService(deps),
    receipts: createReceiptsService(deps),
    // The rows a filter gives, as the list reads them for the person (their sub accounts).
    matching: indexSearchOf(deps).matching,
  }),
  (endpoint) => [
    endpoint('notes.get', {
      summary: "A transaction's notes: memo, accounting category, tags, review, version",
      example: '/api/transactions/{transactionId}/notes',
      handler: ({ req, services, params }) => services.get(who(req), params.id),
    }),
    endpoint('notes.update', {
      summary:
        "Change a transaction's notes or review it, refused with the current notes if they changed or it is reviewed",
      attempted: 'transaction.annotate',
      example: '/api/transactions/{transactionId}/notes',
      handler: ({ req, services, params, body }) => services.change(who(req), params.id, body),
    }),
    endpoint('receipts.list', {
      summary: "A transaction's receipts: name, type, size, who attached them and when",
      example: '/api/transactions/{transactionId}/receipts',
      handler: async ({ req, services, params }) => ({
        items: await services.receipts.list(who(req), params.id),
      }),
    }),
    endpoint('receipts.upload', {
      summary:
        'Attach a receipt (JPEG, PNG, WebP, HEIC or PDF up to 10 MB, decided by its bytes; the name in X-File-Name)',
      attempted: 'transaction.annotate',
      example: '/api/transactions/{transactionId}/receipts',
      fileBody: { limitBytes: RECEIPT_MAX_BYTES, atOnce: UPLOADS_AT_ONCE },
      body: z.instanceof(Buffer),
      status: 201,
      handler: ({ req, services, params, body }) =>
        services.receipts.add(who(req), params.id, body, req.get(FILE_NAME_HEADER)),
    }),
    endpoint('receipts.download', {
      summary: 'A receipt’s file: a picture shown inline or a PDF downloaded, never run',
      example: '/api/transactions/{transactionId}/receipts/{receiptId}',
      handler: ({ res, services, params }) =>
        services.receipts.send(res, params.id, params.receiptId),
    }),
    endpoint('receipts.remove', {
      summary: 'Remove a receipt (not once the transaction is reviewed)',
      attempted: 'transaction.annotate',
      example: '/api/transactions/{transactionId}/receipts/{receiptId}',
      handler: ({ req, services, params }) =>
        services.receipts.remove(who(req), params.id, params.receiptId),
    }),
    endpoint('notes.updateMany', {
      summary:
        'One change to a selection of transactions: a category, tags added, reviewed or reopened (reviewed ones skipped unless reopened)',
      attempted: 'transaction.annotate',
      example: '/api/transactions/notes',
      // 500 rows, each its sub account's and transaction's ids.
      jsonLimitBytes: 256 * 1024,
      handler: ({ req, services, body }) => services.changeMany(who(req), body),
    }),
    endpoint('notes.updateMatching', {
      summary:
        'One change to every transaction a list filter gives now (category, tags, memo appended or replaced, reviewed or reopened), or with preview what it would do',
      attempted: 'transaction.annotate',
      example: '/api/transactions/notes/matching',
      handler: ({ req, services, body }) =>
        services.changeMatching(who(req), body, services.matching),
    }),
  ],
);
