import {
  type SessionResponse,
  signInBodySchema,
  stepUpBodySchema,
} from '@card-console/shared/api/session';
import type { ApiRoutes } from '../../http/api-router';
import { AppError } from '../../http/app-error';
import type { StepUp } from '../../http/deps';
import { sendJson } from '../../http/send-json';
import { parseBody } from '../../http/validate';
import { activeSession, type SessionService } from '../../platform/sessions/session-service';
import type { SessionRecord } from '../../platform/sessions/session-store';
import type { RelyingParty } from '../sso/relying-party';
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
}

/**
 * POST /api/session (sign in), GET (who am I), DELETE (sign out), and the step-up on its own
 * (POST /api/session/step-up, with the passkey options from POST …/step-up-options).
 */
export function sessionRoutes(deps: SessionRoutesDeps): ApiRoutes {
  const describe = async (record: SessionRecord): Promise<SessionResponse> => ({
    ...deps.sessions.describe(record),
    stepUpMethods: await deps.factors.stepUpMethods(record),
    largeMaximumCents: deps.largeMaximumCents,
  });
  const signedIn = () => {
    throw new AppError(401, 'unauthenticated', 'Sign in to continue.');
  };

  return {
    'POST /api/session': async (req, res) => {
      const body = parseBody(signInBodySchema, req);
      const { actor, steppedUp } = await signIn(deps, {
        ...body,
        address: req.ip ?? 'unknown',
        requestId: req.requestId,
      });
      const session = await deps.sessions.start(req, res, actor, {
        steppedUp,
        method: 'password',
      });
      sendJson(res, await describe(session.record));
    },

    'GET /api/session': async (req, res) => {
      const session = activeSession(req);
      if (!session) return signedIn();
      sendJson(res, await describe(session.record));
    },

    'DELETE /api/session': async (req, res) => {
      const session = activeSession(req);
      await deps.sessions.end(req, res);
      let providerLogoutUrl: string | undefined;
      if (session) {
        await deps.audit.append({
          actor: session.record.email,
          role: session.record.role,
          action: 'session.signOut',
          outcome: 'success',
          requestId: req.requestId,
        });
        if (session.record.sso && deps.rp) {
          providerLogoutUrl = await deps.rp.endSessionUrl(
            session.record.sso.idToken,
            deps.signedOutUrl,
          );
        }
      }
      // 204 as before; a single sign-on session learns where to end the provider's session.
      if (providerLogoutUrl) sendJson(res, { providerLogoutUrl });
      else res.status(204).end();
    },

    'POST /api/session/step-up-options': async (req, res) => {
      const session = activeSession(req);
      if (!session) return signedIn();
      const options = await deps.passkeys.authenticationOptions(
        session.record.email,
        'step-up',
        session.key,
      );
      if (!options) {
        throw new AppError(409, 'no_passkeys', 'You have no passkey yet; add one on Security.');
      }
      sendJson(res, options);
    },

    'POST /api/session/step-up': async (req, res) => {
      const body = parseBody(stepUpBodySchema, req);
      await deps.stepUp.require(req, res, body);
      const session = activeSession(req);
      if (!session) return signedIn();
      sendJson(res, await describe(session.record));
    },
  };
}
