import type { Role } from '@card-console/shared/api/meta';

interface ResponseLike {
  headers: Record<string, unknown>;
}

/** The session cookie from a response's Set-Cookie, as `name=value`, if it sets one. */
export function sessionCookieFrom(res: ResponseLike, cookieName: string): string | undefined {
  const raw = res.headers['set-cookie'];
  const lines = Array.isArray(raw) ? (raw as string[]) : typeof raw === 'string' ? [raw] : [];
  for (const line of lines) {
    const pair = line.split(';')[0] ?? '';
    if (pair.startsWith(`${cookieName}=`) && pair.length > cookieName.length + 1) return pair;
  }
  return undefined;
}

/** A signed-in person in a test: the cookie to send, updated when the server rotates it. */
export class TestSession {
  /** How this session signed in (the harness sets 'sso' for single sign-on sessions). */
  via: 'password' | 'sso' = 'password';

  constructor(
    readonly role: Role,
    public cookie: string,
    private readonly cookieName: string,
    private readonly apiHeaders: (extra?: Record<string, string>) => Record<string, string>,
  ) {}

  static fromResponse(
    res: ResponseLike,
    role: Role,
    cookieName: string,
    apiHeaders: (extra?: Record<string, string>) => Record<string, string>,
  ): TestSession {
    const cookie = sessionCookieFrom(res, cookieName);
    if (!cookie) throw new Error('sign-in response set no session cookie');
    return new TestSession(role, cookie, cookieName, apiHeaders);
  }

  /** X-CSRF, Origin and this session's Cookie, plus `extra`. */
  headers(extra: Record<string, string> = {}): Record<string, string> {
    return this.apiHeaders({ Cookie: this.cookie, ...extra });
  }

  /** Takes a rotated session id from a response (step-up); returns true when it rotated. */
  absorb(res: ResponseLike): boolean {
    const next = sessionCookieFrom(res, this.cookieName);
    if (!next || next === this.cookie) return false;
    this.cookie = next;
    return true;
  }
}
