import type { Role } from '@card-console/shared/api/meta';
import type { Request } from 'express';
import { AppError } from '../../core/app-error';
import type { TraceContext } from '../tracing/trace-context';

/** The signed-in person behind a request, set by the session middleware. */
export interface Actor {
  email: string;
  role: Role;
}

declare global {
  namespace Express {
    interface Request {
      /** Set by the request-id middleware before anything else; passed upstream and logged. */
      requestId: string;
      /** Set by the session middleware for a signed-in person. */
      actor?: Actor;
    }
  }
}

/** Who a feature acts for: the signed-in person, and the request id and trace that travel upstream. */
export interface Who {
  requestId: string;
  actor: Actor;
  trace?: TraceContext;
}

/** The signed-in person behind a request; a 401 if there is none. */
export function who(req: Request): Who {
  if (!req.actor) throw new AppError(401, 'unauthenticated', 'Sign in first.');
  return { requestId: req.requestId, actor: req.actor, trace: req.trace };
}
