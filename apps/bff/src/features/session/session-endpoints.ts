import type { SessionResponse } from '@card-console/shared/api/session';
import { AppError } from '../../core/app-error';
import { defineFeature } from '../../core/endpoint';
import type { StepUp } from '../../platform/security/step-up';
import { activeSession, type SessionService } from '../../platform/sessions/session-service';
import type { SessionRecord } from '../../platform/sessions/session-store';
import { StoreUnavailableError } from '../../platform/store-unavailable';
import type { EnrolmentGate } from '../security-policy';
import type { RelyingParty } from '../sso';
import { type SignInDeps, signIn } from './sign-in-service';

export interface SessionRoutesDeps extends SignInDeps {
  sessions: SessionService;
  stepUp: StepUp;
  /** Single sign-on, when configured: signing out there too (RP-initiated logout). */
  rp: RelyingParty | undefined;
  /** Where the provider sends the browser after signing out there. */
  signedOutUrl: string;
  /** The card editor's warning threshold for a maximum per transaction, in cents. */
  largeMaximumCents: number;
  /** Whether a session must set up a second factor first (the security policy). */
  enrolment: EnrolmentGate;
}

function sessionServices(deps: SessionRoutesDeps) {
  return {
    ...deps,
    describe: async (record: SessionRecord): Promise<SessionResponse> => ({
      ...deps.sessions.describe(record),
      // Who am I answers while the people store is out (the sessions' short read caches): the
      // ways to confirm are then unknown, and nothing can be confirmed until it is back anyway.
      stepUpMethods: await unlessStoreOut(() => deps.factors.stepUpMethods(record), []),
      largeMaximumCents: deps.largeMaximumCents,
      ...((await unlessStoreOut(() => deps.enrolment.required(record), false))
        ? { secondFactorEnrolmentRequired: true }
        : {}),
    }),
  };
}

/** `read()`, or `otherwise` when a shared store cannot be reached. */
async function unlessStoreOut<T>(read: () => Promise<T>, otherwise: T): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof StoreUnavailableError) return otherwise;
    throw error;
  }
}

const signedIn = () => new AppError(401, 'unauthenticated', 'Sign in to continue.');

/**
 * Signing in and out, who am I, and the step-up on its own (with the passkey options it
 * needs).
 */
export const sessionFeature = defineFeature('session', sessionServices, (endpoint) => [
  endpoint('session.signIn', {
    summary: 'Sign in with email, password and a second factor (admins, and anyone who has one)',
    attempted: 'session.signIn',
    example: '/api/session',
    handler: async ({ req, res, services, body }) => {
      const { actor, steppedUp, personVersion, proof } = await signIn(services, {
        ...body,
        address: req.ip ?? 'unknown',
        requestId: req.requestId,
      });
      const session = await services.sessions.start(req, res, actor, {
        steppedUp,
        method: 'password',
        personVersion,
        proof,
      });
      return services.describe(session.record);
    },
  }),
  endpoint('session.get', {
    summary: 'Who am I (with `X-Background: 1`, without counting as activity)',
    example: '/api/session',
    handler: ({ req, services }) => {
      const session = activeSession(req);
      if (!session) throw signedIn();
      return services.describe(session.record);
    },
  }),
  endpoint('session.signOut', {
    summary: "Sign out (and learn where to end the identity provider's session)",
    attempted: 'session.signOut',
    example: '/api/session',
    // 204 as before; a single sign-on session learns where to end the provider's session.
    handler: async ({ req, res, services }) => {
      const session = activeSession(req);
      await services.sessions.end(req, res);
      if (!session) return undefined;
      await services.audit.append({
        actor: session.record.email,
        role: session.record.role,
        action: 'session.signOut',
        outcome: 'success',
        requestId: req.requestId,
      });
      if (!session.record.sso || !services.rp) return undefined;
      const providerLogoutUrl = await services.rp.endSessionUrl(
        session.record.sso.idToken,
        services.signedOutUrl,
      );
      return providerLogoutUrl ? { providerLogoutUrl } : undefined;
    },
  }),
  endpoint('session.stepUpOptions', {
    summary: 'Passkey options for a step-up',
    attempted: 'session.stepUp',
    example: '/api/session/step-up-options',
    handler: async ({ req, services }) => {
      const session = activeSession(req);
      if (!session) throw signedIn();
      const options = await services.passkeys.authenticationOptions(
        session.record.email,
        'step-up',
        session.key,
      );
      if (!options) {
        throw new AppError(409, 'no_passkeys', 'You have no passkey yet; add one on Security.');
      }
      return options;
    },
  }),
  endpoint('session.stepUp', {
    summary: 'Prove a second factor now (a TOTP code or a passkey)',
    attempted: 'session.stepUp',
    example: '/api/session/step-up',
    handler: async ({ req, res, services, body }) => {
      await services.stepUp.require(req, res, body);
      const session = activeSession(req);
      if (!session) throw signedIn();
      return services.describe(session.record);
    },
  }),
]);
