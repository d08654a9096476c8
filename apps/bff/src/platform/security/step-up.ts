import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import { AppError } from '../../http/app-error';
import type { AuditStore, StepUp } from '../../http/deps';
import {
  type ActiveSession,
  activeSession,
  type SessionService,
} from '../sessions/session-service';
import type { UserDirectory } from '../users/user-directory';
import { reserve } from './attempt-reservation';
import type { RateLimiters } from './rate-limits';
import type { TotpVerifier } from './totp';

export interface TotpStepUpDeps {
  sessions: SessionService;
  users: UserDirectory;
  totp: TotpVerifier;
  limiters: Pick<RateLimiters, 'stepUpAttempts' | 'stepUpFailures'>;
  audit: AuditStore;
  logger: Logger;
}

const wrongCode = () =>
  new AppError(401, 'invalid_totp', 'That code is not valid. Wait for the next one and retry.');
const ended = () =>
  new AppError(
    401,
    'session_ended',
    'Too many wrong codes: you have been signed out. Sign in again to continue.',
  );

/**
 * A second-factor check within the last 5 minutes, else a fresh TOTP code now. Codes are
 * counted per session (its store key, which changes only when a code passes): each check
 * takes an attempt before the code is looked at, so requests sent at once cannot test more
 * codes than the limit, and the last wrong code the limit allows ends the session.
 */
export class TotpStepUp implements StepUp {
  constructor(private readonly deps: TotpStepUpDeps) {}

  async require(req: Request, res: Response, totp: string | undefined): Promise<void> {
    const { sessions, users, limiters } = this.deps;
    const session = activeSession(req);
    if (!session) throw new AppError(401, 'unauthenticated', 'Sign in first.');
    if (totp === undefined) {
      if (sessions.stepUpUntil(session.record) !== undefined) return;
      throw new AppError(401, 'step_up_required', 'Enter a code from your authenticator app.');
    }

    const reservation = await reserve([{ limiter: limiters.stepUpAttempts, key: session.key }]);
    if (!reservation.ok) {
      // Every attempt is taken: the others are still being checked, or were all wrong.
      const failures = await limiters.stepUpFailures.get(session.key);
      if ((failures?.consumedPoints ?? 0) >= limiters.stepUpFailures.points) {
        await sessions.end(req, res);
        throw ended();
      }
      throw new AppError(429, 'rate_limited', 'A code is already being checked; wait a moment.', {
        retryAfterSeconds: 1,
      });
    }

    const secret = users.find(session.record.email)?.totpSecret;
    if (!secret || !(await this.deps.totp.verify(session.record.email, secret, totp))) {
      // Failures never exceed attempts, so the last failure allowed comes after every other
      // attempt of this session has been answered: none can still pass and revive it.
      const failures = await limiters.stepUpFailures.penalty(session.key, 1);
      if (failures.consumedPoints >= limiters.stepUpFailures.points) {
        await this.end(req, res, session);
        throw ended();
      }
      throw wrongCode();
    }

    await sessions.recordStepUp(req, res);
    // The old key is dead with the old id; its counters go with it.
    await Promise.all([
      limiters.stepUpAttempts.delete(session.key),
      limiters.stepUpFailures.delete(session.key),
    ]);
  }

  /** Destroys the session (the cookie is cleared on this answer) and audits why. */
  private async end(req: Request, res: Response, session: ActiveSession): Promise<void> {
    await this.deps.sessions.end(req, res);
    try {
      await this.deps.audit.append({
        actor: session.record.email,
        role: session.record.role,
        action: 'session.ended',
        outcome: 'denied',
        detail: 'step_up_failures',
        requestId: req.requestId,
      });
    } catch (error) {
      // The session is over either way; a lost record is for an operator to see.
      this.deps.logger.error(
        { err: error, requestId: req.requestId, traceId: req.trace?.traceId },
        'audit append failed for a session ended after wrong codes',
      );
    }
  }
}
