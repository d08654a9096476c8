import { resourceIdSchema } from '@card-console/shared/upstream/common';
import type { Request } from 'express';
import type { Logger } from 'pino';
import { findCardNumbers } from '../platform/security/card-numbers';
import { consumeOrThrow, type RateLimiters } from '../platform/security/rate-limits';
import { AppError } from './app-error';
import type { AuditStore } from './deps';
import type { RouteRule } from './route-table';

interface AuthorizeDeps {
  audit: AuditStore;
  limiters: RateLimiters;
  logger: Logger;
}

/** A card id worth recording on a denial: well-formed and not something that looks like a PAN. */
function cardIdOf(path: string): string | undefined {
  const match = /^\/api\/cards\/([^/]+)/.exec(path);
  if (!match?.[1]) return undefined;
  const id = resourceIdSchema.safeParse(match[1]);
  return id.success && findCardNumbers(id.data).length === 0 ? id.data : undefined;
}

/**
 * Enforces a matched route-table row (after the session is loaded): `signedIn` or role rows
 * without a session → 401; wrong role → 403 and an `access.denied` audit record. Signed-in
 * calls count against the per-user limit (denied ones too); reveals also against the
 * tighter reveal limit. Unmatched paths never get here: the API router answers them 404.
 */
export function createAuthorizer({ audit, limiters, logger }: AuthorizeDeps) {
  const isReveal = (rule: RouteRule) =>
    rule.method === 'POST' && rule.path === '/api/cards/:id/reveal';

  return async (rule: RouteRule, req: Request): Promise<void> => {
    if (rule.access === 'public') return;

    const actor = req.actor;
    if (!actor) throw new AppError(401, 'unauthenticated', 'Sign in to continue.');
    // Before the role check, so a stream of denied calls (each one audited) is limited too.
    await consumeOrThrow(limiters.apiPerUser, actor.email, 'Too many requests; slow down.');

    if (rule.access !== 'signedIn' && !rule.access.includes(actor.role)) {
      try {
        await audit.append({
          actor: actor.email,
          role: actor.role,
          action: 'access.denied',
          outcome: 'denied',
          target: `${rule.method} ${rule.path}`,
          cardId: cardIdOf(req.path),
          requestId: req.requestId,
        });
      } catch (error) {
        logger.error({ err: error, requestId: req.requestId }, 'audit append failed for a denial');
      }
      throw new AppError(403, 'forbidden', 'Your role may not do this.');
    }

    if (isReveal(rule)) {
      await consumeOrThrow(limiters.revealPerUser, actor.email, 'Too many reveals; wait a minute.');
    }
  };
}
