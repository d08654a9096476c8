import type { Request } from 'express';
import { AppError } from './app-error';

const mutations = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * `X-CSRF: 1` on every /api call (a header a foreign page cannot add without a CORS preflight,
 * which we never grant): without it, a 401. Returns whether the Origin is acceptable: true for
 * reads and for mutations from the public origin, false for a mutation from anywhere else,
 * which the caller refuses (`badOrigin`) after recording who tried.
 */
export function createCsrfCheck(allowedOrigins: readonly string[]): (req: Request) => boolean {
  const allowed = new Set(allowedOrigins);
  return (req) => {
    if (req.get('x-csrf') !== '1') {
      throw new AppError(401, 'csrf_required', 'Missing the X-CSRF: 1 request header.');
    }
    return !mutations.has(req.method) || allowed.has(req.get('origin') ?? '');
  };
}

export function badOrigin(): AppError {
  return new AppError(403, 'bad_origin', 'This request did not come from Card Console.');
}
