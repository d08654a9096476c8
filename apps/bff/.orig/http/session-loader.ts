import type { RequestHandler } from 'express';
import type { SessionService } from '../platform/sessions/session-service';

/**
 * Attaches the session (and `req.actor`) to /api requests. A background "who am I" poll
 * (GET /api/session with `X-Background: 1`) reads it without counting as activity, so an
 * open but unused tab still times out after 15 minutes.
 */
export function sessionLoader(sessions: SessionService): RequestHandler {
  return async (req, _res, next) => {
    const background =
      req.method === 'GET' && req.path === '/session' && req.get('x-background') === '1';
    await sessions.load(req, !background);
    next();
  };
}
