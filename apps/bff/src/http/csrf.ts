import type { Request } from 'express';
import { AppError } from './app-error';

const mutations = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * `X-CSRF: 1` on every /api call (a header a foreign page cannot add without a CORS preflight,
 * which we never grant), and on mutations an Origin equal to the public origin.
 */
export function createCsrfCheck(allowedOrigins: readonly string[]): (req: Request) => void {
  const allowed = new Set(allowedOrigins);
  return (req) => {
    if (req.get('x-csrf') !== '1') {
      throw new AppError(401, 'csrf_required', 'Missing the X-CSRF: 1 request header.');
    }
    if (mutations.has(req.method) && !allowed.has(req.get('origin') ?? '')) {
      throw new AppError(403, 'bad_origin', 'This request did not come from Card Console.');
    }
  };
}
