import { AppError } from '../../core/app-error';
import { defineFeature } from '../../core/endpoint';
import { who } from '../../platform/sessions/who';
import type { FeatureDeps } from '../feature-deps';
import { subAccountName } from '../sub-accounts';
import { exportContentDisposition, exportDays } from './export-file-name';
import { exportStreamContext, withExportSlot } from './export-response';
import { createExportService } from './export-service';
import { createLocalTimes } from './local-time';
import { streamCsv } from './stream-csv';
import { createTransactionsService } from './transactions-service';

export const transactionsFeature = defineFeature(
  'transactions',
  (deps: FeatureDeps) => ({
    deps,
    transactions: createTransactionsService(deps),
    exports: createExportService(deps),
  }),
  (endpoint) => [
    endpoint('transactions.list', {
      summary: "A page of one sub account's transactions, filtered",
      example: '/api/transactions?subAccountId={subAccountId}',
      handler: ({ req, services, query }) => services.transactions.list(who(req), query),
    }),
    endpoint('transactions.exportCsv', {
      summary: 'Every transaction the filters match, as CSV, streamed',
      example: '/api/transactions/export.csv?subAccountId={subAccountId}',
      // HEAD reaches this handler too (Express answers HEAD with the GET route).
      handler: async ({ req, res, services: { deps, exports }, query }) => {
        const { tz, fromDay, toDay, ...filter } = query;
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
        // transaction page (walking every page to send no body would be all of an export's
        // cost for nothing); only the sub account's name for the file's, as the GET's.
        if (req.method === 'HEAD') {
          res
            .status(200)
            .set(headers(await subAccountName(deps.upstream, ctx, filter.subAccountId)))
            .end();
          return;
        }
        const stream = exportStreamContext(req, res, person, deps);
        await withExportSlot(deps, person, res, async () => {
          const name = subAccountName(deps.upstream, ctx, filter.subAccountId);
          // Before the walk: its pages are made CSV as they arrive, naming their cards then.
          await deps.cardDirectory.ready();
          const rows = await exports.open(person, filter, stream.clientGone, {
            times,
            cards: deps.cardDirectory,
          });
          res.status(200).set(headers(await name));
          await streamCsv(res, rows, { ...stream, endsWithReason: true });
        });
      },
    }),
    endpoint('transactions.exportReceipt', {
      summary: 'Whether an export of yours ran to its last row (asked once the file is read)',
      example: '/api/transactions/export-receipts/{exportRequestId}',
      handler: async ({ req, services: { deps }, params }) => {
        const receipt = await deps.exportReceipts.find(who(req).actor.email, params.requestId);
        // Another person's receipt is as missing as none: it tells nothing about their exports.
        if (!receipt) throw exportIncomplete();
        return receipt;
      },
    }),
    endpoint('transactions.get', {
      summary: 'One transaction',
      example: '/api/transactions/{transactionId}',
      handler: ({ req, services, params }) => services.transactions.get(who(req), params.id),
    }),
  ],
);

function exportIncomplete(): AppError {
  return new AppError(
    404,
    'export_incomplete',
    'This export has no record of finishing: it was interrupted, or it ended over 15 minutes ago.',
  );
}
