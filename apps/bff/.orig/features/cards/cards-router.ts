import {
  cardListQuerySchema,
  cardPatchBodySchema,
  revealBodySchema,
} from '@card-console/shared/api/cards';
import { resourceIdSchema } from '@card-console/shared/upstream/common';
import { type Request, Router } from 'express';
import { AppError } from '../../http/app-error';
import type { FeatureDeps } from '../../http/deps';
import { parseBody, parseParam, parseQuery } from '../../http/validate';
import { createCardsService, type Who } from './cards-service';
import { createRevealService } from './reveal-service';
import { createUpdateCardService } from './update-card-service';

function who(req: Request): Who {
  if (!req.actor) throw new AppError(401, 'unauthenticated', 'Sign in first.');
  return { requestId: req.requestId, actor: req.actor };
}

/** The reason as typed, for the audit of a refused reveal (bounded; never trusted further). */
function claimedReason(body: unknown): string | undefined {
  const reason = (body as { reason?: unknown } | undefined)?.reason;
  return typeof reason === 'string' && reason.trim() ? reason.trim().slice(0, 500) : undefined;
}

export function createCardsRouter(deps: FeatureDeps): Router {
  const cards = createCardsService(deps);
  const reveals = createRevealService(deps);
  const updates = createUpdateCardService(deps);
  const router = Router();

  router.get('/api/cards', async (req, res) => {
    res.json(await cards.list(who(req), parseQuery(cardListQuerySchema, req)));
  });

  router.get('/api/cards/:id', async (req, res) => {
    const id = parseParam(resourceIdSchema, req.params.id, 'id');
    res.json(await cards.get(who(req), id));
  });

  router.patch('/api/cards/:id', async (req, res) => {
    const id = parseParam(resourceIdSchema, req.params.id, 'id');
    const change = parseBody(cardPatchBodySchema, req);
    res.json(await updates.update(who(req), id, change));
  });

  router.post('/api/cards/:id/reveal', async (req, res) => {
    res.set('Cache-Control', 'no-store');
    const person = who(req);
    const id = parseParam(resourceIdSchema, req.params.id, 'id');
    let body: { reason: string; totp?: string | undefined };
    try {
      body = parseBody(revealBodySchema, req);
      await deps.stepUp.require(req, res, body.totp);
    } catch (error) {
      await reveals.recordDenied(person, id, claimedReason(req.body), error);
      throw error;
    }
    res.json(await reveals.reveal(person, id, body.reason));
  });

  return router;
}
