import type { Role } from '@card-console/shared/api/meta';

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
