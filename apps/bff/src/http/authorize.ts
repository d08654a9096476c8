import { resourceIdSchema } from '@card-console/shared/upstream/common';
import type { Request } from 'express';
import type { Logger } from 'pino';
import { AppError } from '../core/app-error';
import { type Endpoint, routeOf } from '../core/endpoint';
import type { AuditStore, NewAuditRecord } from '../platform/audit/audit-store';
import { holdsCardNumber, withCardNumbersMasked } from '../platform/security/card-number-ids';
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
   * parameter holding a card number → 400 `invalid_id`, audited (masked) on mutations. Reveals
   * also count against the tighter reveal limit; a reveal it refuses (429) is audited.
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

/**
 * The card id of a card route, as an audit record may hold it: a card number typed in its
 * place masked to its last four digits, a malformed id left out.
 */
function cardIdOf(rule: Rule | undefined, req: Request): string | undefined {
  if (!rule?.cardIdParam) return undefined;
  const id = req.params?.id;
  if (typeof id !== 'string') return undefined;
  if (holdsCardNumber(id)) return withCardNumbersMasked(id);
  return resourceIdSchema.safeParse(id).success ? id : undefined;
}

/** A path parameter holding a card number, if any (a card number is never an id). */
function cardNumberParam(req: Request): string | undefined {
  const params = req.params as Record<string, string> | undefined;
  for (const name in params) {
    if (holdsCardNumber(params[name] as string)) return name;
  }
  return undefined;
}

/** What a refused mutation is recorded as: the feature's own action where there is one. */
function actionOf(rule: Rule): NewAuditRecord['action'] {
  return rule.refusedAs ?? 'access.denied';
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
        if (rule.mutation) {
          const cardId = cardIdOf(rule, req);
          const action = actionOf(rule);
          await record(req, {
            action,
            ...(action === 'access.denied' ? { attempted: rule.attempted } : {}),
            outcome: 'denied',
            target: action === 'access.denied' ? routeOf(rule) : cardId,
            cardId,
            detail: 'invalid_id',
          });
        }
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

      if (rule.revealLimited && req.actor) {
        try {
          await consumeOrThrow(
            limiters.revealPerUser,
            req.actor.email,
            'Too many reveals; wait a minute.',
          );
        } catch (error) {
          if (error instanceof AppError && error.status === 429) {
            const cardId = cardIdOf(rule, req);
            await record(req, {
              action: 'card.reveal',
              outcome: 'denied',
              target: cardId,
              cardId,
              detail: 'rate_limited',
            });
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
