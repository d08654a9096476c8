import { signInBodySchema } from '@card-console/shared/api/session';
import { Router } from 'express';
import { AppError } from '../../http/app-error';
import { parseBody } from '../../http/validate';
import { activeSession, type SessionService } from '../../platform/sessions/session-service';
import { type SignInDeps, signIn } from './sign-in-service';

export interface SessionRouterDeps extends SignInDeps {
  sessions: SessionService;
}

/** POST /api/session (sign in), GET (who am I), DELETE (sign out). */
export function createSessionRouter(deps: SessionRouterDeps): Router {
  const router = Router();

  router.post('/api/session', async (req, res) => {
    const body = parseBody(signInBodySchema, req);
    const { actor, steppedUp } = await signIn(deps, {
      ...body,
      address: req.ip ?? 'unknown',
      requestId: req.requestId,
    });
    const session = await deps.sessions.start(req, res, actor, steppedUp);
    res.status(200).json(deps.sessions.describe(session.record));
  });

  router.get('/api/session', (req, res) => {
    const session = activeSession(req);
    if (!session) throw new AppError(401, 'unauthenticated', 'Sign in to continue.');
    res.json(deps.sessions.describe(session.record));
  });

  router.delete('/api/session', async (req, res) => {
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
  });

  return router;
}
