import {
  transactionExportQuerySchema,
  transactionListQuerySchema,
} from '@card-console/shared/api/transactions';
import { resourceIdSchema } from '@card-console/shared/upstream/common';
import type { ApiRoutes } from '../../http/api-router';
import { who } from '../../http/context';
import type { FeatureDeps } from '../../http/deps';
import { sendJson } from '../../http/send-json';
import { parseParam, parseQuery } from '../../http/validate';
import { createExportService } from './export-service';
import { streamCsv } from './stream-csv';
import { createTransactionsService } from './transactions-service';

export function transactionsRoutes(deps: FeatureDeps): ApiRoutes {
  const transactions = createTransactionsService(deps);
  const exports = createExportService(deps);

  return {
    'GET /api/transactions': async (req, res) => {
      sendJson(res, await transactions.list(who(req), parseQuery(transactionListQuerySchema, req)));
    },

    // Registered before '/:id' so "export.csv" is never read as an id.
    'GET /api/transactions/export.csv': async (req, res) => {
      const filter = parseQuery(transactionExportQuerySchema, req);
      const person = who(req);
      const gone = new AbortController();
      res.on('close', () => gone.abort());
      const rows = await exports.open(person, filter, gone.signal);
      const day = new Date(deps.clock.now()).toISOString().slice(0, 10);
      res.status(200).set({
        'Content-Type': 'text/csv; charset=utf-8',
        'Content-Disposition': `attachment; filename="transactions-${filter.subAccountId}-${day}.csv"`,
        'Cache-Control': 'no-store',
      });
      await streamCsv(res, rows, {
        logger: deps.logger,
        requestId: person.requestId,
        clientGone: gone.signal,
      });
    },

    'GET /api/transactions/:id': async (req, res) => {
      const id = parseParam(resourceIdSchema, req.params.id, 'id');
      sendJson(res, await transactions.get(who(req), id));
    },
  };
}
