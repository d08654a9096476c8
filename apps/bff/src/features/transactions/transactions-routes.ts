import {
  exportRequestIdSchema,
  transactionExportQuerySchema,
  transactionListQuerySchema,
  transactionPageSchema,
  transactionSchema,
} from '@card-console/shared/api/transactions';
import { resourceIdSchema } from '@card-console/shared/upstream/common';
import type { ApiRoutes } from '../../http/api-router';
import { AppError } from '../../http/app-error';
import { who } from '../../http/context';
import type { FeatureDeps } from '../../http/deps';
import { sendJson } from '../../http/send-json';
import { parseParam, parseQuery } from '../../http/validate';
import { compileSerializer } from '../../platform/schemas/compiled-serializer';
import { subAccountName } from '../sub-accounts/sub-accounts-service';
import { exportContentDisposition, exportDays } from './export-file-name';
import { exportStreamContext, withExportSlot } from './export-response';
import { createExportService } from './export-service';
import { createLocalTimes } from './local-time';
import { streamCsv } from './stream-csv';
import { createTransactionsService } from './transactions-service';

export function transactionsRoutes(deps: FeatureDeps): ApiRoutes {
  const transactions = createTransactionsService(deps);
  const exports = createExportService(deps);
  const writePage = compileSerializer(transactionPageSchema);
  const writeTransaction = compileSerializer(transactionSchema);

  return {
    'GET /api/transactions': async (req, res) => {
      const query = parseQuery(transactionListQuerySchema, req);
      sendJson(res, await transactions.list(who(req), query), 200, writePage);
    },

    // Registered before '/:id' so "export.csv" is never read as an id. HEAD reaches this
    // handler too (the route table answers HEAD with the GET row).
    'GET /api/transactions/export.csv': async (req, res) => {
      const { tz, fromDay, toDay, ...filter } = parseQuery(transactionExportQuerySchema, req);
      const person = who(req);
      const times = createLocalTimes(tz);
      const ctx = { requestId: person.requestId, trace: person.trace, role: person.actor.role };
      const headers = (subAccount: string | undefined) => ({
        'Content-Type': 'text/csv; charset=utf-8',
        'Content-Disposition': exportContentDisposition({
          subAccountName: subAccount,
          ...exportDays(filter, { fromDay, toDay, zone: times.zone, now: deps.clock.now() }),
        }),
        'Cache-Control': 'no-store',
      });
      // A HEAD gets the headers a download starts with and nothing more: no slot, no
      // transaction page (walking every page to send no body would be all of an export's cost
      // for nothing); only the sub account's name for the file's, as the GET's.
      if (req.method === 'HEAD') {
        res
          .status(200)
          .set(headers(await subAccountName(deps.upstream, ctx, filter.subAccountId)))
          .end();
        return;
      }
      const stream = exportStreamContext(req, res, person, deps);
      await withExportSlot(deps, person, async () => {
        const name = subAccountName(deps.upstream, ctx, filter.subAccountId);
        // Before the walk: its pages are made CSV as they arrive, naming their cards then.
        await deps.cardDirectory.ready();
        const rows = await exports.open(person, filter, stream.clientGone, {
          times,
          cards: deps.cardDirectory,
        });
        res.status(200).set(headers(await name));
        await streamCsv(res, rows, stream);
      });
    },

    // Asked by the SPA once it has read a whole export: only a receipt proves the export ran to
    // its last row, since a proxy in front may end a cut download cleanly.
    'GET /api/transactions/export-receipts/:requestId': async (req, res) => {
      const requestId = parseParam(exportRequestIdSchema, req.params.requestId, 'requestId');
      const receipt = await deps.exportReceipts.find(who(req).actor.email, requestId);
      // Another person's receipt is as missing as none: it tells nothing about their exports.
      if (!receipt) throw exportIncomplete();
      sendJson(res, receipt);
    },

    'GET /api/transactions/:id': async (req, res) => {
      const id = parseParam(resourceIdSchema, req.params.id, 'id');
      sendJson(res, await transactions.get(who(req), id), 200, writeTransaction);
    },
  };
}

function exportIncomplete(): AppError {
  return new AppError(
    404,
    'export_incomplete',
    'This export has no record of finishing: it was interrupted, or it ended over 15 minutes ago.',
  );
}
