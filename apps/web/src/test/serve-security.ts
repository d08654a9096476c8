import {
  type PasskeyEnrolBody,
  passkeyEnrolBodySchema,
  passkeyRenameBodySchema,
  type SecondFactorsResponse,
  totpConfirmBodySchema,
  totpSettingBodySchema,
} from '@card-console/shared/api/security';
import {
  type SecurityPolicy,
  securityPolicyUpdateSchema,
} from '@card-console/shared/api/security-policy';
import {
  type SessionResponse,
  type StepUpBody,
  stepUpBodySchema,
} from '@card-console/shared/api/session';
import { HttpResponse } from 'msw';
import { adminSession, secondFactors } from './fixtures';
import { apiError, serve, server } from './server';

export const registrationOptions = {
  challenge: 'registration-challenge',
  rp: { name: 'Card Console', id: 'localhost' },
  user: { id: 'dXNlcg', name: 'admin@example.test', displayName: 'admin@example.test' },
  pubKeyCredParams: [{ alg: -7, type: 'public-key' }],
};
export const stepUpOptions = { challenge: 'step-up-challenge' };

/**
 * A BFF holding one person's session (an admin's unless the overrides say finance) and second
 * factors, and the security policy. Changes need a step-up (a code 123456 or the passkey cred-1)
 * as the real one does, except a person's first second factor, which the real one lets in
 * shortly after sign-in; every request body is checked with the shared schemas.
 */
export function serveSecurity(
  initial: SecondFactorsResponse = secondFactors(),
  sessionOverrides: Partial<SessionResponse> = {},
) {
  const factors = structuredClone(initial);
  let session = adminSession({ stepUpMethods: ['passkey', 'totp'], ...sessionOverrides });
  let policy: SecurityPolicy = { requireSecondFactor: false };
  const sent = {
    policies: [] as boolean[],
    stepUps: [] as StepUpBody[],
    enrolments: [] as PasskeyEnrolBody[],
    renames: [] as { id: string; name: string }[],
    removals: [] as string[],
    totp: [] as boolean[],
    totpSetups: 0,
    totpCodes: [] as string[],
  };
  /** The secret a setup answered with, waiting for the code 654321 (the "app" shows it). */
  let pendingTotp: string | undefined;
  const steppedUp = () => session.stepUpUntil !== undefined && session.stepUpUntil > Date.now();
  /** Nothing to confirm with yet: the first factor is let in (a recent sign-in). */
  const firstFactor = () => session.stepUpMethods.length === 0;
  const stepUpRequired = () =>
    apiError(401, 'step_up_required', 'Confirm it is you first.', {
      secondFactor: { methods: session.stepUpMethods },
    });

  server.use(
    serve('session.get', () => HttpResponse.json(session)),
    serve('securityPolicy.get', () => HttpResponse.json(policy)),
    serve('securityPolicy.update', async ({ request }) => {
      const { requireSecondFactor } = securityPolicyUpdateSchema.parse(await request.json());
      sent.policies.push(requireSecondFactor);
      if (!steppedUp()) return stepUpRequired();
      policy = {
        requireSecondFactor,
        updatedBy: session.email,
        updatedAt: new Date().toISOString(),
      };
      return HttpResponse.json(policy);
    }),
    serve('security.secondFactors', () => HttpResponse.json(factors)),
    serve('session.stepUpOptions', () => HttpResponse.json(stepUpOptions)),
    serve('session.stepUp', async ({ request }) => {
      const body = stepUpBodySchema.parse(await request.json());
      sent.stepUps.push(body);
      if (body.totp !== undefined && body.totp !== '123456') {
        return apiError(401, 'invalid_totp', 'Wrong code.');
      }
      if (body.passkey && body.passkey.id !== 'cred-1') {
        return apiError(401, 'invalid_passkey', 'Unknown passkey.');
      }
      session = { ...session, stepUpUntil: Date.now() + 5 * 60_000 };
      return HttpResponse.json(session);
    }),
    serve('security.registrationOptions', () =>
      steppedUp() || firstFactor() ? HttpResponse.json(registrationOptions) : stepUpRequired(),
    ),
    serve('security.addPasskey', async ({ request }) => {
      const body = passkeyEnrolBodySchema.parse(await request.json());
      sent.enrolments.push(body);
      if (!steppedUp() && !firstFactor()) return stepUpRequired();
      if (factors.passkeys.some((p) => p.id === body.response.id)) {
        return apiError(409, 'passkey_exists', 'Already enrolled.');
      }
      const added = { id: body.response.id, name: body.name, createdAt: Date.now() };
      factors.passkeys.push(added);
      // With a factor, a held session is held no more, and the passkey is what it confirms with.
      const { secondFactorEnrolmentRequired: _held, ...rest } = session;
      session = {
        ...rest,
        stepUpMethods: [...new Set([...session.stepUpMethods, 'passkey' as const])],
      };
      return HttpResponse.json(added, { status: 201 });
    }),
    serve('security.renamePasskey', async ({ request, params }) => {
      const { name } = passkeyRenameBodySchema.parse(await request.json());
      const id = String(params.id);
      sent.renames.push({ id, name });
      const passkey = factors.passkeys.find((p) => p.id === id);
      if (!passkey) return apiError(404, 'not_found', 'No such passkey.');
      passkey.name = name;
      return HttpResponse.json(passkey);
    }),
    serve('security.removePasskey', ({ params }) => {
      const id = String(params.id);
      sent.removals.push(id);
      if (!steppedUp()) return stepUpRequired();
      if (factors.passkeys.length === 1 && !factors.totp.enabled) {
        return apiError(409, 'last_factor', 'That is your last second factor.');
      }
      factors.passkeys = factors.passkeys.filter((p) => p.id !== id);
      return new HttpResponse(null, { status: 204 });
    }),
    serve('security.setTotp', async ({ request }) => {
      const { enabled } = totpSettingBodySchema.parse(await request.json());
      sent.totp.push(enabled);
      if (!steppedUp()) return stepUpRequired();
      if (!enabled && factors.passkeys.length === 0) {
        return apiError(409, 'last_factor', 'You need a passkey first.');
      }
      factors.totp.enabled = enabled;
      return HttpResponse.json(factors);
    }),
    serve('security.totpSetup', () => {
      sent.totpSetups += 1;
      if (!steppedUp() && !firstFactor()) return stepUpRequired();
      pendingTotp = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
      return HttpResponse.json({
        secret: pendingTotp,
        uri: `otpauth://totp/Card%20Console:${encodeURIComponent(session.email)}?secret=${pendingTotp}&issuer=Card%20Console`,
        expiresAt: Date.now() + 10 * 60_000,
      });
    }),
    serve('security.confirmTotp', async ({ request }) => {
      const { code } = totpConfirmBodySchema.parse(await request.json());
      sent.totpCodes.push(code);
      if (!steppedUp() && !firstFactor()) return stepUpRequired();
      if (!pendingTotp) {
        return apiError(409, 'no_totp_setup', 'That setup has expired or was never started.');
      }
      if (code !== '654321') {
        return apiError(
          422,
          'invalid_totp',
          'That code does not match. Type the code it shows now.',
        );
      }
      pendingTotp = undefined;
      factors.totp = { available: true, enabled: true };
      const { secondFactorEnrolmentRequired: _held, ...rest } = session;
      session = {
        ...rest,
        stepUpMethods: [...new Set([...session.stepUpMethods, 'totp' as const])],
      };
      return HttpResponse.json(factors);
    }),
  );
  return { sent, factors };
}
