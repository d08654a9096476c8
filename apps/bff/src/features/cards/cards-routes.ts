import {
  cardListQuerySchema,
  cardPageSchema,
  cardPatchBodySchema,
  cardSchema,
  revealBodySchema,
} from '@card-console/shared/api/cards';
import { limitImpactQuerySchema } from '@card-console/shared/api/insights';
import { resourceIdSchema } from '@card-console/shared/upstream/common';
import type { z } from 'zod';
import type { ApiRoutes } from '../../http/api-router';
import { who } from '../../http/context';
import type { FeatureDeps } from '../../http/deps';
import { sendJson } from '../../http/send-json';
import { parseBody, parseParam, parseQuery } from '../../http/validate';
import { compileSerializer } from '../../platform/schemas/compiled-serializer';
import { createCardsService } from './cards-service';
import { createLimitImpactService, strictLimitDigits } from './limit-impact-service';
import { createRevealService } from './reveal-service';
import { createUpdateCardService } from './update-card-service';

/** The reason as typed, for the audit of a refused reveal (bounded; never trusted further). */
function claimedReason(body: unknown): string | undefined {
  const reason = (body as { reason?: unknown } | undefined)?.reason;
  return typeof reason === 'string' && reason.trim() ? reason.trim().slice(0, 500) : undefined;
}

export function cardsRoutes(deps: FeatureDeps): ApiRoutes {
  const cards = createCardsService(deps);
  const reveals = createRevealService(deps);
  const updates = createUpdateCardService(deps);
  const impacts = createLimitImpactService(deps);
  const writePage = compileSerializer(cardPageSchema);
  const writeCard = compileSerializer(cardSchema);

  return {
    'GET /api/cards': async (req, res) => {
      sendJson(
        res,
        await cards.list(who(req), parseQuery(cardListQuerySchema, req)),
        200,
        writePage,
      );
    },

    'GET /api/cards/:id': async (req, res) => {
      const id = parseParam(resourceIdSchema, req.params.id, 'id');
      sendJson(res, await cards.get(who(req), id), 200, writeCard);
    },

    'PATCH /api/cards/:id': async (req, res) => {
      const id = parseParam(resourceIdSchema, req.params.id, 'id');
      const change = parseBody(cardPatchBodySchema, req);
      sendJson(res, await updates.update(who(req), id, change));
    },

    'GET /api/cards/:id/limit-impact': async (req, res) => {
      const id = parseParam(resourceIdSchema, req.params.id, 'id');
      const query = parseQuery(limitImpactQuerySchema, req);
      strictLimitDigits(req.query as Record<string, string>);
      sendJson(res, await impacts.preview(who(req), id, query));
    },

    'POST /api/cards/:id/reveal': async (req, res) => {
      res.set('Cache-Control', 'no-store');
      const person = who(req);
      const id = parseParam(resourceIdSchema, req.params.id, 'id');
      let body: z.output<typeof revealBodySchema>;
      try {
        body = parseBody(revealBodySchema, req);
        await deps.stepUp.require(req, res, { totp: body.totp, passkey: body.passkey });
      } catch (error) {
        await reveals.recordDenied(person, id, claimedReason(req.body), error);
        throw error;
      }
      sendJson(res, await reveals.reveal(person, id, body.reason));
    },
  };
}
