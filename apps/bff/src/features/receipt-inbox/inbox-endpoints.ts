import { RECEIPT_MAX_BYTES } from '@card-console/shared/api/notes';
import { z } from 'zod';
import { defineFeature } from '../../core/endpoint';
import { who } from '../../platform/sessions/who';
import { FILE_NAME_HEADER } from '../notes';
import type { ReceiptInboxService } from './inbox-service';

/** Files dropped at once a replica takes in at a time (each up to 10 MB, inspected in memory). */
const UPLOADS_AT_ONCE = 4;

/**
 * Each person's receipt inbox: receipts dropped in a pile or mailed to their forwarding address,
 * read and matched to their transactions in the background (decision 0118). Everyone has one;
 * each sees only their own.
 */
export const receiptInboxFeature = defineFeature(
  'receipt-inbox',
  // Made by the composition root (app.ts, server.ts), which hands the mail listener the same.
  (deps: { receiptInbox: ReceiptInboxService }) => deps.receiptInbox,
  (endpoint) => [
    endpoint('inbox.list', {
      summary:
        'Your receipt inbox, newest first: each file, what was read off it, the transactions suggested or the one it was attached to',
      example: '/api/receipt-inbox',
      handler: ({ req, services }) => services.list(who(req)),
    }),
    endpoint('inbox.upload', {
      summary:
        'Drop a receipt into your inbox (JPEG, PNG, WebP, HEIC or PDF up to 10 MB, the name in X-File-Name); it is read and matched in the background',
      attempted: 'transaction.annotate',
      example: '/api/receipt-inbox',
      fileBody: { limitBytes: RECEIPT_MAX_BYTES, atOnce: UPLOADS_AT_ONCE },
      body: z.instanceof(Buffer),
      status: 201,
      handler: ({ req, services, body }) =>
        services.upload(who(req), body, req.get(FILE_NAME_HEADER)),
    }),
    endpoint('inbox.file', {
      summary: 'An inbox receipt’s file: a picture shown inline or a PDF downloaded, never run',
      example: '/api/receipt-inbox/{itemId}/file',
      handler: ({ req, res, services, params }) => services.send(who(req), res, params.id),
    }),
    endpoint('inbox.attach', {
      summary:
        'Attach an inbox receipt to a transaction: a suggested one confirmed, or another picked',
      attempted: 'transaction.annotate',
      example: '/api/receipt-inbox/{itemId}/attach',
      handler: ({ req, services, params, body }) => services.attach(who(req), params.id, body),
    }),
    endpoint('inbox.discard', {
      summary: 'Discard a receipt from your inbox (not one attached)',
      attempted: 'transaction.annotate',
      example: '/api/receipt-inbox/{itemId}',
      handler: ({ req, services, params }) => services.discard(who(req), params.id),
    }),
    endpoint('inbox.address', {
      summary:
        'Your private address for forwarding receipts by email, when receiving mail is set up',
      example: '/api/receipt-inbox/address',
      handler: ({ req, services }) => services.address(who(req)),
    }),
    endpoint('inbox.rotateAddress', {
      summary: 'A new forwarding address; mail to the old one is refused from now on',
      attempted: 'transaction.annotate',
      example: '/api/receipt-inbox/address',
      handler: ({ req, services }) => services.rotateAddress(who(req)),
    }),
  ],
);
