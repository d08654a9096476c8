import { signInBodySchema } from '@card-console/shared/api/session';
import type { ApiRoutes } from '../../http/api-router';
import { AppError } from '../../http/app-error';
import { sendJson } from '../../http/send-json';
import { parseBody } from '../../http/validate';
import { activeSession, type SessionService } from '../../platform/sessions/session-service';
import { type SignInDeps, signIn } from './sign-in-service';

export interface SessionRoutesDeps extends SignInDeps {
  sessions: SessionService;
}

/** POST /api/session (sign in), GET (who am I), DELETE (sign out). */
export function sessionRoutes(deps: SessionRoutesDeps): ApiRoutes {
  return {
    'POST /api/session': async (req, res) => {
      const body = parseBody(signInBodySchema, req);
      const { actor, steppedUp } = await signIn(deps, {
        ...body,
        address: req.ip ?? 'unknown',
        requestId: req.requestId,
      });
      const session = await deps.sessions.start(req, res, actor, steppedUp);
      sendJson(res, deps.sessions.describe(session.record));
    },

    'GET /api/session': (req, res) => {
      const session = activeSession(req);
      if (!session) throw new AppError(401, 'unauthenticated', 'Sign in to continue.');
      sendJson(res, deps.sessions.describe(session.record));
    },

    'DELETE /api/session': async (req, res) => {
      const session = activeSession(req);
      await deps.sessions.end(req, res);
      if (session) {
        await deps.audit.append({
          actor: session.record.email,
          role: session.record.role,
          action: 'session.signOut',
          outcome: 'success',
          requestId: req.requestId,
        });
      }
      res.status(204).end();
    },
  };
}
