import type { Request } from 'express';
import type { Logger } from 'pino';
import { AppError } from '../core/app-error';

const mutations = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Enough of a received Origin to recognise it; the header is the caller's to fill. */
const ORIGIN_LOG_LENGTH = 200;

/**
 * `X-CSRF: 1` on every /api call (a header a foreign page cannot add without a CORS preflight,
 * which we never grant): without it, a 401. Returns whether the Origin is acceptable: true for
 * reads and for mutations from the public origin, false for a mutation from anywhere else,
 * which the caller refuses (`badOrigin`) after recording who tried. A refusal is logged with
 * the origin received and the ones allowed: a PUBLIC_ORIGIN that differs from the address
 * people open refuses every sign-in, and the operator needs to see why.
 */
export function createCsrfCheck(
  allowedOrigins: readonly string[],
  logger: Pick<Logger, 'warn'>,
): (req: Request) => boolean {
  const allowed = new Set(allowedOrigins);
  return (req) => {
    if (req.get('x-csrf') !== '1') {
      throw new AppError(401, 'csrf_required', 'Missing the X-CSRF: 1 request header.');
    }
    if (!mutations.has(req.method)) return true;
    const origin = req.get('origin');
    if (origin !== undefined && allowed.has(origin)) return true;
    logger.warn(
      {
        requestId: req.requestId,
        method: req.method,
        origin: origin === undefined ? null : origin.slice(0, ORIGIN_LOG_LENGTH),
        allowedOrigins,
      },
      origin === undefined
        ? 'mutation refused: no Origin header (is a proxy removing it?)'
        : 'mutation refused: its Origin is not PUBLIC_ORIGIN (is PUBLIC_ORIGIN the address people open?)',
    );
    return false;
  };
}

export function badOrigin(): AppError {
  return new AppError(403, 'bad_origin', 'This request did not come from Card Console.');
}
