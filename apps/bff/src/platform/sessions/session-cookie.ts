import type { Request, Response } from 'express';
import type { Config } from '../../env';

/** 32 random bytes in base64url (see `SessionService.issue`). */
export const SESSION_ID_LENGTH = 43;
const idPattern = new RegExp(`^[A-Za-z0-9_-]{${SESSION_ID_LENGTH}}$`);

/**
 * The session id from the Cookie header, or undefined when absent or malformed. Also reads the
 * single sign-on binding cookie, a token of the same shape.
 */
export function readSessionId(req: Request, cookieName: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() !== cookieName) continue;
    const value = part.slice(eq + 1).trim();
    return idPattern.test(value) ? value : undefined;
  }
  return undefined;
}

function cookieOptions(cookie: Config['cookie']) {
  // No Max-Age: a browser-session cookie; the server enforces idle and absolute expiry.
  return { httpOnly: true, sameSite: 'strict' as const, path: '/', secure: cookie.secure };
}

export function writeSessionCookie(res: Response, cookie: Config['cookie'], id: string): void {
  res.cookie(cookie.name, id, cookieOptions(cookie));
}

export function clearSessionCookie(res: Response, cookie: Config['cookie']): void {
  res.clearCookie(cookie.name, cookieOptions(cookie));
}
