import {
  subAccountCreateBodySchema,
  subAccountListQuerySchema,
} from '@card-console/shared/api/sub-accounts';
import { type Request, Router } from 'express';
import { AppError } from '../../http/app-error';
import type { FeatureDeps } from '../../http/deps';
import { parseBody, parseQuery } from '../../http/validate';
import { createSubAccountsService, type Who } from './sub-accounts-service';

function who(req: Request): Who {
  if (!req.actor) throw new AppError(401, 'unauthenticated', 'Sign in first.');
  return { requestId: req.requestId, actor: req.actor };
}

export function createSubAccountsRouter(deps: FeatureDeps): Router {
  const service = createSubAccountsService(deps);
  const router = Router();

  router.get('/api/sub-accounts', async (req, res) => {
    const query = parseQuery(subAccountListQuerySchema, req);
    res.json(await service.list(who(req), query));
  });

  router.post('/api/sub-accounts', async (req, res) => {
    const body = parseBody(subAccountCreateBodySchema, req);
    res.status(201).json(await service.create(who(req), body));
  });

  return router;
}
