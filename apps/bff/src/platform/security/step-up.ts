import type { AuditMethod } from '@card-console/shared/api/audit';
import type { PasskeyAssertion } from '@card-console/shared/api/security';
import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import { AppError } from '../../core/app-error';
import type { AuditStore } from '../audit/audit-store';
import { type PasskeyCeremonies, PasskeyRefused } from '../passkeys/passkey-ceremonies';
import type { SecondFactors } from '../passkeys/second-factors';
import {
  type ActiveSession,
  activeSession,
  type SessionService,
} from '../sessions/session-service';
import { reserve } from './attempt-reservation';
import type { RateLimiters } from './rate-limits';
import type { TotpVerifier } from './totp';

/** A second factor offered with a request: a TOTP code or a passkey's assertion. */
export interface StepUpProof {
  totp?: string | undefined;
  passkey?: PasskeyAssertion | undefined;
}

/** The second-factor check a reveal (and enrolling or removing a factor) needs. */
export interface StepUp {
  /**
   * Resolves when the person behind `req` passed a second-factor check within the last
   * 5 minutes, or when `proof` passes now (then the step-up is recorded and the session id
   * rotated, with the new cookie set on `res`). Otherwise throws AppError 401
   * `step_up_required` (no proof given, or given with an id a step-up rotated away moments
   * ago; `secondFactor.methods` says what may be used),
   * 401 `invalid_totp` / `invalid_passkey`, 401 `session_ended` (too many wrong proofs: the
   * session is destroyed and its cookie cleared on `res`) or 429 `rate_limited` (the
   * session's other proofs are still being checked).
   */
  require(req: Request, res: Response, proof?: StepUpProof): Promise<void>;
}

export interface StepUpDeps {
  sessions: SessionService;
  factors: SecondFactors;
  passkeys: PasskeyCeremonies;
  totp: TotpVerifier;
  limiters: Pick<RateLimiters, 'stepUpAttempts' | 'stepUpFailures'>;
  audit: AuditStore;
  logger: Logger;
}

const wrongCode = () =>
  new AppError(401, 'invalid_totp', 'That code is not valid. Wait for the next one and retry.');
const wrongPasskey = () =>
  new AppError(401, 'invalid_passkey', 'That passkey could not be checked. Try again.');
const ended = () =>
  new AppError(
    401,
    'session_ended',
    'Too many wrong codes: you have been signed out. Sign in again to continue.',
  );

/**
 * A second-factor check within the last 5 minutes, else a fresh one now: a TOTP code or a
 * passkey (a single sign-on session's fresh sign-in at the provider is recorded by the SSO
 * callback). Proofs are counted per session (its store key, which changes only when a proof
 * passes): each check takes an attempt before the proof is looked at, so requests sent at
 * once cannot test more than the limit, and the last wrong proof the limit allows ends the
 * session. Every check that looked at a proof is audited (`session.stepUp`).
 */
export class SecondFactorStepUp implements StepUp {
  constructor(private readonly deps: StepUpDeps) {}

  async require(req: Request, res: Response, proof: StepUpProof = {}): Promise<void> {
    const { sessions, limiters } = this.deps;
    const session = activeSession(req);
    if (!session) throw new AppError(401, 'unauthenticated', 'Sign in first.');
    const noProof = proof.totp === undefined && proof.passkey === undefined;
    if (noProof && sessions.stepUpUntil(session.record) !== undefined) return;
    // A proof sent with an id a step-up just rotated away is not looked at (nothing steps up
    // from that id): asked again, the browser sends it with the new cookie.
    if (noProof || sessions.isRetired(session.record)) {
      throw new AppError(401, 'step_up_required', 'Confirm it is you with a second factor.', {
        extensions: {
          secondFactor: { methods: await this.deps.factors.stepUpMethods(session.record) },
        },
      });
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

    const method: AuditMethod = proof.passkey ? 'passkey' : 'totp';
    const failure = await this.check(session, proof);
    if (failure) {
      // Failures never exceed attempts, so the last failure allowed comes after every other
      // attempt of this session has been answered: none can still pass and revive it.
      const failures = await limiters.stepUpFailures.penalty(session.key, 1);
      // The refusal stands whether or not its record can be written (an operator sees a loss).
      await this.audit(req, session, 'failed', method, failure).catch((error: unknown) => {
        this.deps.logger.error(
          { err: error, requestId: req.requestId, traceId: req.trace?.traceId },
          'audit append failed for a refused step-up',
        );
      });
      if (failures.consumedPoints >= limiters.stepUpFailures.points) {
        await this.end(req, res, session);
        throw ended();
      }
      throw method === 'passkey' ? wrongPasskey() : wrongCode();
    }

    // Recorded first: a step-up the trail cannot show does not happen (503, nothing changed).
    await this.audit(req, session, 'success', method);
    await sessions.recordStepUp(req, res);
    // The old key is dead with the old id; its counters go with it.
    await Promise.all([
      limiters.stepUpAttempts.delete(session.key),
      limiters.stepUpFailures.delete(session.key),
    ]);
  }

  /** Why the proof failed, or undefined when it passed. */
  private async check(session: ActiveSession, proof: StepUpProof): Promise<string | undefined> {
    const { email } = session.record;
    if (proof.passkey) {
      try {
        await this.deps.passkeys.verifyAuthentication(email, 'step-up', session.key, proof.passkey);
        return undefined;
      } catch (error) {
        if (error instanceof PasskeyRefused) return `passkey refused: ${error.message}`;
        throw error;
      }
    }
    // A single sign-on session steps up with a passkey or at the provider, never a code.
    const secret =
      session.record.method === 'sso' ? undefined : await this.deps.factors.totpSecret(email);
    if (!secret) return 'no TOTP for this person';
    const ok = await this.deps.totp.verify(email, secret, proof.totp as string);
    return ok ? undefined : 'bad second-factor code';
  }

  private async audit(
    req: Request,
    session: ActiveSession,
    outcome: 'success' | 'failed',
    method: AuditMethod,
    detail?: string,
  ): Promise<void> {
    await this.deps.audit.append({
      actor: session.record.email,
      role: session.record.role,
      action: 'session.stepUp',
      outcome,
      method,
      ...(detail ? { detail } : {}),
      requestId: req.requestId,
    });
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

/**
 * The check before a change to a person's own second factors: `stepUp.require`, except for a
 * person who has no second factor yet (nothing to prove it with). Their first one may be added
 * within the step-up window after signing in with their password (the sign-in counts as the
 * check; 5 minutes); later, 401 `recent_sign_in_required`: sign in again, then add it.
 */
export async function requireForOwnFactors(
  deps: { stepUp: StepUp; factors: Pick<SecondFactors, 'stepUpMethods'>; sessions: SessionService },
  req: Request,
  res: Response,
  proof?: StepUpProof,
): Promise<void> {
  const session = activeSession(req);
  if (!session) throw new AppError(401, 'unauthenticated', 'Sign in first.');
  const { record } = session;
  if (proof === undefined && (await deps.factors.stepUpMethods(record)).length === 0) {
    if (deps.sessions.stepUpUntil({ ...record, stepUpAt: record.createdAt }) !== undefined) return;
    throw new AppError(
      401,
      'recent_sign_in_required',
      'To add your first second factor, sign in again and add it within 5 minutes.',
    );
  }
  await deps.stepUp.require(req, res, proof);
}
