import {
  type PasskeySummary,
  passkeyEnrolBodySchema,
  passkeyIdSchema,
  passkeyRenameBodySchema,
  totpSettingBodySchema,
} from '@card-console/shared/api/passkeys';
import type { Request, Response } from 'express';
import type { ApiRoutes } from '../../http/api-router';
import { AppError } from '../../http/app-error';
import type { AuditStore, StepUp } from '../../http/deps';
import { sendJson } from '../../http/send-json';
import { parseBody, parseParam } from '../../http/validate';
import type { StoredPasskey } from '../../platform/passkeys/factor-store';
import { type PasskeyCeremonies, PasskeyRefused } from '../../platform/passkeys/passkey-ceremonies';
import type { SecondFactors } from '../../platform/passkeys/second-factors';
import { containsCardNumber, maskCardNumbers } from '../../platform/security/card-numbers';
import { type ActiveSession, activeSession } from '../../platform/sessions/session-service';

export interface PasskeyRoutesDeps {
  factors: SecondFactors;
  passkeys: PasskeyCeremonies;
  stepUp: StepUp;
  audit: AuditStore;
}

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

/**
 * An admin's own second factors: passkeys enrolled, named and removed, and TOTP turned off
 * once a passkey exists (or on again). Adding or removing a factor needs a second-factor check
 * within the last 5 minutes (`StepUp`), so a stolen session alone cannot plant a passkey.
 */
export function passkeyRoutes(deps: PasskeyRoutesDeps): ApiRoutes {
  const { factors, passkeys, stepUp, audit } = deps;

  const session = (req: Request): ActiveSession => {
    const current = activeSession(req);
    if (!current) throw new AppError(401, 'unauthenticated', 'Sign in to continue.');
    return current;
  };
  /** A proven factor within the step-up window; the current session afterwards. */
  const proven = async (req: Request, res: Response): Promise<ActiveSession> => {
    await stepUp.require(req, res);
    return session(req);
  };
  const factorRecord = (
    req: Request,
    current: ActiveSession,
    action: 'factor.enrolled' | 'factor.removed',
    method: 'passkey' | 'totp',
    target?: string,
  ) =>
    audit.append({
      actor: current.record.email,
      role: current.record.role,
      action,
      outcome: 'success',
      method,
      ...(target ? { target: maskCardNumbers(target).slice(0, 200) } : {}),
      requestId: req.requestId,
    });
  const state = async (email: string) => {
    const [{ passkeys: list }, totp] = await Promise.all([
      factors.store.get(email),
      factors.totpState(email),
    ]);
    return { passkeys: list.map(summary), totp };
  };

  return {
    'GET /api/second-factors': async (req, res) => {
      sendJson(res, await state(session(req).record.email));
    },

    'PATCH /api/second-factors/totp': async (req, res) => {
      const { enabled } = parseBody(totpSettingBodySchema, req);
      const current = await proven(req, res);
      const { email } = current.record;
      const before = await factors.totpState(email);
      if (!before.available) {
        throw new AppError(409, 'no_totp', 'Your account has no authenticator app set up.');
      }
      if (before.enabled !== enabled) {
        const outcome = await factors.store.setTotpDisabled(email, !enabled);
        if (outcome === 'no_passkey') throw lastFactor();
        await factorRecord(req, current, enabled ? 'factor.enrolled' : 'factor.removed', 'totp');
      }
      sendJson(res, await state(email));
    },

    'POST /api/passkeys/registration-options': async (req, res) => {
      const current = await proven(req, res);
      sendJson(res, await passkeys.registrationOptions(current.record.email, current.key));
    },

    'POST /api/passkeys': async (req, res) => {
      const body = withoutCardNumber(parseBody(passkeyEnrolBodySchema, req));
      const current = await proven(req, res);
      let passkey: StoredPasskey;
      try {
        passkey = await passkeys.verifyRegistration(current.key, body.response, body.name);
      } catch (error) {
        if (!(error instanceof PasskeyRefused)) throw error;
        throw new AppError(
          401,
          'invalid_passkey',
          'The new passkey could not be checked. Start again from "Add a passkey".',
        );
      }
      const added = await factors.store.addPasskey(current.record.email, passkey);
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
      await factorRecord(req, current, 'factor.enrolled', 'passkey', passkey.name);
      sendJson(res, summary(passkey), 201);
    },

    'PATCH /api/passkeys/:id': async (req, res) => {
      const id = parseParam(passkeyIdSchema, req.params.id, 'id');
      const { name } = withoutCardNumber(parseBody(passkeyRenameBodySchema, req));
      const renamed = await factors.store.renamePasskey(session(req).record.email, id, name);
      if (!renamed) throw new AppError(404, 'not_found', 'You have no such passkey.');
      sendJson(res, summary(renamed));
    },

    'DELETE /api/passkeys/:id': async (req, res) => {
      const id = parseParam(passkeyIdSchema, req.params.id, 'id');
      const current = await proven(req, res);
      const { email } = current.record;
      const name = (await factors.store.get(email)).passkeys.find((p) => p.id === id)?.name;
      const outcome = await factors.store.removePasskey(email, id);
      if (outcome === 'not_found')
        throw new AppError(404, 'not_found', 'You have no such passkey.');
      if (outcome === 'last_factor') throw lastFactor();
      await factorRecord(req, current, 'factor.removed', 'passkey', name ?? id);
      res.status(204).end();
    },
  };
}
