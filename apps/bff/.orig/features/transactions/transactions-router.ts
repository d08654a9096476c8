import {
  transactionExportQuerySchema,
  transactionListQuerySchema,
} from '@card-console/shared/api/transactions';
import { resourceIdSchema } from '@card-console/shared/upstream/common';
import { type Request, Router } from 'express';
import { AppError } from '../../http/app-error';
import type { FeatureDeps } from '../../http/deps';
import { parseParam, parseQuery } from '../../http/validate';
import { createExportService } from './export-service';
import { streamCsv } from './stream-csv';
import { createTransactionsService, type Who } from './transactions-service';

function who(req: Request): Who {
  if (!req.actor) throw new AppError(401, 'unauthenticated', 'Sign in first.');
  return { requestId: req.requestId, actor: req.actor };
}

export function createTransactionsRouter(deps: FeatureDeps): Router {
  const transactions = createTransactionsService(deps);
  const exports = createExportService(deps);
  const router = Router();

  router.get('/api/transactions', async (req, res) => {
    res.json(await transactions.list(who(req), parseQuery(transactionListQuerySchema, req)));
  });

  // Registered before '/:id' so "export.csv" is never read as an id.
  router.get('/api/transactions/export.csv', async (req, res) => {
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
  });

  router.get('/api/transactions/:id', async (req, res) => {
    const id = parseParam(resourceIdSchema, req.params.id, 'id');
    res.json(await transactions.get(who(req), id));
  });

  return router;
}
