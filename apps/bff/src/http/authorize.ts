import type { Request } from 'express';
import type { Logger } from 'pino';
import { AppError } from '../core/app-error';
import { type Endpoint, routeOf } from '../core/endpoint';
import type { AuditStore, NewAuditRecord } from '../platform/audit/audit-store';
import { holdsCardNumber } from '../platform/security/card-number-ids';
import { consumeOrThrow, type RateLimiters } from '../platform/security/rate-limits';
import { badOrigin } from './csrf';

type Rule = Endpoint;

interface AuthorizeDeps {
  audit: AuditStore;
  limiters: RateLimiters;
  logger: Logger;
}

export interface Authorizer {
  /**
   * Enforces an endpoint's declaration (after the session is loaded and `req.params` set):
   * `signedIn` or role rows without a session → 401; wrong role → 403 and an `access.denied`
   * audit record. Signed-in calls count against the per-user limit (denied ones too). A path
   * parameter holding a card number → 400 `invalid_id`, audited (masked) on mutations. An
   * endpoint with a limit of its own (reveals) counts against it too; a refusal by it (429) is
   * audited.
   * Unmatched paths never get here: the API router answers them 404.
   */
  check(rule: Rule, req: Request): Promise<void>;
  /**
   * Refuses a mutation from a foreign Origin (403 `bad_origin`). With a signed-in session
   * loaded (`req.actor`), the attempt counts against the per-user limit and is audited as
   * `access.denied`; an anonymous one is only logged, so anyone on the network cannot fill
   * the audit trail.
   */
  refuseForeignOrigin(rule: Rule | undefined, req: Request): Promise<never>;
}

/** The card a refusal's record names, where the endpoint's feature says how to read it. */
const cardIdOf = (rule: Rule | undefined, req: Request) => rule?.refusals?.cardId?.(req);

/** A path parameter holding a card number, if any (a card number is never an id). */
function cardNumberParam(req: Request): string | undefined {
  const params = req.params as Record<string, string> | undefined;
  for (const name in params) {
    if (holdsCardNumber(params[name] as string)) return name;
  }
  return undefined;
}

/**
 * The record of a refused call: the feature's own action naming the card (or what else it
 * targets) where it declares one, otherwise `access.denied` naming the route and what was
 * attempted.
 */
function refusalOf(
  rule: Rule,
  req: Request,
  detail: string,
): Omit<NewAuditRecord, 'actor' | 'requestId'> {
  const cardId = cardIdOf(rule, req);
  const action = rule.refusals?.action;
  if (action) {
    const target = cardId ?? rule.refusals?.target?.(req);
    return { action, outcome: 'denied', target, cardId, detail };
  }
  const target = routeOf(rule);
  return {
    action: 'access.denied',
    attempted: rule.attempted,
    outcome: 'denied',
    target,
    cardId,
    detail,
  };
}

export function createAuthorizer({ audit, limiters, logger }: AuthorizeDeps): Authorizer {
  /** Records a refusal; the refusal stands even when its record cannot be written. */
  async function record(req: Request, entry: Omit<NewAuditRecord, 'actor' | 'requestId'>) {
    const actor = req.actor;
    if (!actor) return;
    try {
      await audit.append({
        actor: actor.email,
        role: actor.role,
        ...entry,
        requestId: req.requestId,
      });
    } catch (error) {
      logger.error(
        { err: error, requestId: req.requestId, traceId: req.trace?.traceId },
        'audit append failed for a refusal',
      );
    }
  }

  return {
    async check(rule, req) {
      if (rule.access !== 'public') {
        const actor = req.actor;
        if (!actor) throw new AppError(401, 'unauthenticated', 'Sign in to continue.');
        // Before the role check, so a stream of denied calls (each one audited) is limited too.
        await consumeOrThrow(limiters.apiPerUser, actor.email, 'Too many requests; slow down.');

        if (rule.access !== 'signedIn' && !rule.access.includes(actor.role)) {
          await record(req, {
            action: 'access.denied',
            attempted: rule.attempted,
            outcome: 'denied',
            target: routeOf(rule),
            cardId: cardIdOf(rule, req),
          });
          throw new AppError(403, 'forbidden', 'Your role may not do this.');
        }
      }

      if (cardNumberParam(req) !== undefined) {
        // Refused here, before the body is read or anything reaches the card service; the
        // message does not repeat the number.
        if (rule.mutation) await record(req, refusalOf(rule, req, 'invalid_id'));
        throw new AppError(
          400,
          'invalid_id',
          'The path holds what looks like a card number where an id belongs; use the id.',
        );
      }

      if (rule.fileBody && req.actor) {
        await consumeOrThrow(
          limiters.uploadsPerUser,
          req.actor.email,
          'Too many files uploaded; wait a minute.',
        );
      }

      const limit = rule.refusals?.limit;
      if (limit && req.actor) {
        try {
          await consumeOrThrow(limiters[limit.limiter], req.actor.email, limit.message);
        } catch (error) {
          if (error instanceof AppError && error.status === 429) {
            await record(req, refusalOf(rule, req, 'rate_limited'));
          }
          throw error;
        }
      }
    },

    async refuseForeignOrigin(rule, req) {
      const actor = req.actor;
      const target = rule ? routeOf(rule) : `${req.method} (no such endpoint)`;
      if (!actor) {
        logger.warn(
          { requestId: req.requestId, traceId: req.trace?.traceId, route: target },
          'mutation refused: foreign Origin, no session (not audited)',
        );
        throw badOrigin();
      }
      // Counted like a denied call, so a stream of them (each one audited) is cut off too.
      await consumeOrThrow(limiters.apiPerUser, actor.email, 'Too many requests; slow down.');
      await record(req, {
        action: 'access.denied',
        attempted: rule?.attempted,
        outcome: 'denied',
        target,
        cardId: cardIdOf(rule, req),
        detail: 'bad_origin',
      });
      throw badOrigin();
    },
  };
}
