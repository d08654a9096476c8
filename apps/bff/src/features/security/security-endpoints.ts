import type { PasskeySummary } from '@card-console/shared/api/security';
import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import { AppError } from '../../core/app-error';
import type { Clock } from '../../core/clock';
import { defineFeature } from '../../core/endpoint';
import type { AuditStore, NewAuditRecord } from '../../platform/audit/audit-store';
import { auditedChange } from '../../platform/audit/audited-change';
import { ownTotpSecretOwner, type StoredPasskey } from '../../platform/passkeys/factor-store';
import { type PasskeyCeremonies, PasskeyRefused } from '../../platform/passkeys/passkey-ceremonies';
import type { SecondFactors } from '../../platform/passkeys/second-factors';
import { containsCardNumber, maskCardNumbers } from '../../platform/security/card-numbers';
import type { OneTimeStore } from '../../platform/security/one-time-store';
import { requireForOwnFactors, type StepUp } from '../../platform/security/step-up';
import { newTotpSecret, otpauthUri, type TotpVerifier } from '../../platform/security/totp';
import {
  type ActiveSession,
  activeSession,
  type SessionService,
} from '../../platform/sessions/session-service';

export interface PasskeyRoutesDeps {
  factors: SecondFactors;
  passkeys: PasskeyCeremonies;
  stepUp: StepUp;
  sessions: SessionService;
  audit: AuditStore;
  logger: Logger;
  clock: Clock;
  totp: TotpVerifier;
  /** Where a new authenticator secret waits for its first code (the WebAuthn challenges' store). */
  pendingTotp: OneTimeStore;
}

/** How long a new authenticator secret waits for the code that confirms it. */
export const TOTP_SETUP_TTL_MS = 10 * 60_000;
/** Wrong codes a pending setup takes before it is dropped (a new setup makes a new secret). */
export const TOTP_SETUP_TRIES = 5;

/** What waits for the confirming code: the secret sealed for the person, never in clear. */
interface PendingTotp {
  email: string;
  sealed: string;
  expiresAt: number;
  wrong: number;
}

/**
 * One pending setup per person (a newer one replaces it), not per session: a step-up asked for
 * between the setup and its code rotates the session id, and the person should not have to type
 * a new key for it. Both steps need the same proof (`services.proven`).
 */
const pendingKey = (email: string) => `totp-setup:${email}`;

const noTotpSetup = () =>
  new AppError(
    409,
    'no_totp_setup',
    'That setup has expired or was never started. Start again from "Set up an authenticator app".',
  );

// A name stored before names were checked for card numbers is shown and recorded masked.
const summary = (p: StoredPasskey): PasskeySummary => ({
  id: p.id,
  name: maskCardNumbers(p.name),
  createdAt: p.createdAt,
  ...(p.lastUsedAt !== undefined ? { lastUsedAt: p.lastUsedAt } : {}),
});

/**
 * A passkey's name that holds a card number is refused with a 400, not masked: it would be
 * kept in the factor store and the audit trail, and a name other than the one the person typed
 * would be a surprise they should hear about. (A card's name is masked on its way back from
 * the card service instead: that name is the card service's to keep, not ours.)
 */
function withoutCardNumber<T extends { name: string }>(body: T): T {
  if (containsCardNumber(body.name)) {
    throw new AppError(
      400,
      'invalid_body',
      'name: must not contain a card number (13-19 digits that pass the Luhn check, however they are grouped)',
    );
  }
  return body;
}

const lastFactor = () =>
  new AppError(
    409,
    'last_factor',
    'This is your only second factor: add a passkey or turn TOTP back on first.',
  );

/** The audit record of a change to a person's own second factors. */
interface FactorRecord {
  action: 'factor.enrolled' | 'factor.removed' | 'factor.renamed';
  method: 'passkey' | 'totp';
  target?: string | undefined;
  before?: { name: string };
  after?: { name: string };
}

/**
 * A person's own second factors (every role): passkeys enrolled, named and removed, and TOTP
 * turned off once a passkey exists (or on again). Adding or removing a factor needs a
 * second-factor check within the last 5 minutes (`StepUp`), so a stolen session alone cannot
 * plant a passkey; a person with no factor yet adds their first within 5 minutes of signing in
 * with their password (`requireForOwnFactors`, decision 0120). Each
 * is recorded before the factor store writes it: a trail that cannot take the record leaves the
 * factors as they were (503 `audit_unavailable`).
 */
function passkeyServices(deps: PasskeyRoutesDeps) {
  const { factors, stepUp } = deps;
  const session = (req: Request): ActiveSession => {
    const current = activeSession(req);
    if (!current) throw new AppError(401, 'unauthenticated', 'Sign in to continue.');
    return current;
  };
  return {
    ...deps,
    session,
    /**
     * A proven factor within the step-up window (for a person with none yet, a sign-in within
     * it); the current session afterwards.
     */
    proven: async (req: Request, res: Response): Promise<ActiveSession> => {
      await requireForOwnFactors({ stepUp, factors, sessions: deps.sessions }, req, res);
      return session(req);
    },
    /**
     * A factor change and its record, written together or not at all. `done`: the store's
     * outcome when it made the change (any other takes the record back); without it, the store
     * calls `audited` only for a change it makes. `record` may be made from what the store hands
     * `audited` inside its write (a rename's name before).
     */
    recorded: <R>(
      req: Request,
      current: ActiveSession,
      record: FactorRecord | ((handed: string) => FactorRecord),
      change: (audited: (handed: string) => Promise<void>) => Promise<R>,
      done?: R,
    ): Promise<R> => {
      const mask = (text: string) => maskCardNumbers(text).slice(0, 200);
      const entry = (handed: unknown): NewAuditRecord => {
        const fields = typeof record === 'function' ? record(String(handed)) : record;
        return {
          actor: current.record.email,
          role: current.record.role,
          action: fields.action,
          outcome: 'success',
          method: fields.method,
          ...(fields.target ? { target: mask(fields.target) } : {}),
          ...(fields.before ? { before: { name: mask(fields.before.name) } } : {}),
          ...(fields.after ? { after: { name: mask(fields.after.name) } } : {}),
          requestId: req.requestId,
        };
      };
      return auditedChange(
        deps,
        change,
        (handed) => [entry(handed)],
        done === undefined ? undefined : (outcome) => outcome !== done,
      );
    },
    state: async (email: string) => {
      const [{ passkeys: list }, totp] = await Promise.all([
        factors.store.get(email),
        factors.totpState(email),
      ]);
      return { passkeys: list.map(summary), totp };
    },
  };
}

export const securityFeature = defineFeature('security', passkeyServices, (endpoint) => [
  endpoint('security.secondFactors', {
    summary: 'Your passkeys and whether TOTP is on',
    example: '/api/second-factors',
    handler: ({ req, services }) => services.state(services.session(req).record.email),
  }),
  endpoint('security.setTotp', {
    summary: 'Turn TOTP off (a passkey exists) or on again',
    attempted: 'factors.change',
    example: '/api/second-factors/totp',
    handler: async ({ req, res, services, body: { enabled } }) => {
      const current = await services.proven(req, res);
      const { email } = current.record;
      const before = await services.factors.totpState(email);
      if (!before.available) {
        throw new AppError(409, 'no_totp', 'Your account has no authenticator app set up.');
      }
      if (before.enabled !== enabled) {
        const outcome = await services.recorded(
          req,
          current,
          { action: enabled ? 'factor.enrolled' : 'factor.removed', method: 'totp' },
          (audited) => services.factors.store.setTotpDisabled(email, !enabled, audited),
          'ok',
        );
        if (outcome === 'no_passkey') throw lastFactor();
      }
      return services.state(email);
    },
  }),
  endpoint('security.totpSetup', {
    summary: 'Start setting up an authenticator app: a new secret, pending for 10 minutes',
    attempted: 'factors.change',
    example: '/api/second-factors/totp/setup',
    handler: async ({ req, res, services }) => {
      const current = await services.proven(req, res);
      const { email } = current.record;
      // The secret is a shared secret the person must type or scan into their app: this answer
      // is, by design, the one place it ever leaves the server. It is never logged, and what
      // waits for the confirming code (and what is stored after) is sealed.
      const secret = newTotpSecret();
      const expiresAt = services.clock.now() + TOTP_SETUP_TTL_MS;
      const pending: PendingTotp = {
        email,
        sealed: services.factors.sealOwn(email, secret),
        expiresAt,
        wrong: 0,
      };
      await services.pendingTotp.put(pendingKey(email), JSON.stringify(pending), TOTP_SETUP_TTL_MS);
      return { secret, uri: otpauthUri(email, secret), expiresAt };
    },
  }),
  endpoint('security.confirmTotp', {
    summary: 'Confirm a new authenticator app with a code, replacing any older one',
    attempted: 'factors.change',
    example: '/api/second-factors/totp',
    handler: async ({ req, res, services, body: { code } }) => {
      const current = await services.proven(req, res);
      const { email } = current.record;
      const key = pendingKey(email);
      const taken = await services.pendingTotp.take(key);
      const pending = taken === undefined ? undefined : (JSON.parse(taken) as PendingTotp);
      if (!pending || pending.email !== email) throw noTotpSetup();
      const secret = services.factors.box.open(ownTotpSecretOwner(email), pending.sealed).secret;
      if (!(await services.totp.verifyNewSecret(email, secret, code))) {
        const wrong = pending.wrong + 1;
        const left = pending.expiresAt - services.clock.now();
        // Put back for another try (a typo should not cost the person the secret they typed).
        if (wrong < TOTP_SETUP_TRIES && left > 0) {
          await services.pendingTotp.put(key, JSON.stringify({ ...pending, wrong }), left);
        }
        throw new AppError(
          422,
          'invalid_totp',
          wrong < TOTP_SETUP_TRIES
            ? 'That code does not match. Check your authenticator app’s clock and type the code it shows now.'
            : 'That code does not match, too many times. Start again from "Set up an authenticator app".',
        );
      }
      await services.recorded(
        req,
        current,
        { action: 'factor.enrolled', method: 'totp' },
        (audited) => services.factors.store.setTotpSecret(email, pending.sealed, audited),
        'ok',
      );
      return services.state(email);
    },
  }),
  endpoint('security.registrationOptions', {
    summary: 'Options to enrol a new passkey',
    attempted: 'factors.change',
    example: '/api/passkeys/registration-options',
    handler: async ({ req, res, services }) => {
      const current = await services.proven(req, res);
      return services.passkeys.registrationOptions(current.record.email, current.key);
    },
  }),
  endpoint('security.addPasskey', {
    summary: 'Enrol a passkey',
    attempted: 'factors.change',
    example: '/api/passkeys',
    status: 201,
    handler: async ({ req, res, services, body }) => {
      withoutCardNumber(body);
      const current = await services.proven(req, res);
      let passkey: StoredPasskey;
      try {
        passkey = await services.passkeys.verifyRegistration(current.key, body.response, body.name);
      } catch (error) {
        if (!(error instanceof PasskeyRefused)) throw error;
        throw new AppError(
          401,
          'invalid_passkey',
          'The new passkey could not be checked. Start again from "Add a passkey".',
        );
      }
      const added = await services.recorded(
        req,
        current,
        { action: 'factor.enrolled', method: 'passkey', target: passkey.name },
        (audited) => services.factors.store.addPasskey(current.record.email, passkey, audited),
        'added',
      );
      if (added === 'duplicate') {
        throw new AppError(409, 'passkey_exists', 'That passkey is already enrolled.');
      }
      if (added === 'too_many') {
        throw new AppError(
          409,
          'too_many_passkeys',
          'You have 10 passkeys, the most allowed; remove one first.',
        );
      }
      return summary(passkey);
    },
  }),
  endpoint('security.renamePasskey', {
    summary: 'Rename a passkey',
    attempted: 'factors.change',
    example: '/api/passkeys/{passkeyId}',
    handler: async ({ req, services, params, body }) => {
      const { name } = withoutCardNumber(body);
      const current = services.session(req);
      const { email } = current.record;
      const store = services.factors.store;
      // Recorded when the name changes, with the name it had as the store read it inside the
      // rename's write (two renames at once each record the name they replaced).
      const renamed = await services.recorded(
        req,
        current,
        (was) => ({
          action: 'factor.renamed',
          method: 'passkey',
          target: name,
          before: { name: was },
          after: { name },
        }),
        (audited) => store.renamePasskey(email, params.id, name, audited),
      );
      if (!renamed) throw new AppError(404, 'not_found', 'You have no such passkey.');
      return summary(renamed);
    },
  }),
  endpoint('security.removePasskey', {
    summary: 'Remove a passkey (never the last second factor)',
    attempted: 'factors.change',
    example: '/api/passkeys/{passkeyId}',
    handler: async ({ req, res, services, params: { id } }) => {
      const current = await services.proven(req, res);
      const { email } = current.record;
      const store = services.factors.store;
      const name = (await store.get(email)).passkeys.find((p) => p.id === id)?.name;
      const outcome = await services.recorded(
        req,
        current,
        { action: 'factor.removed', method: 'passkey', target: name ?? id },
        (audited) => store.removePasskey(email, id, audited),
        'removed',
      );
      if (outcome === 'not_found')
        throw new AppError(404, 'not_found', 'You have no such passkey.');
      if (outcome === 'last_factor') throw lastFactor();
      return undefined;
    },
  }),
]);
