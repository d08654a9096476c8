// Single sign-on over OpenID Connect: full-page navigations (no X-CSRF header is possible),
// protected instead by state, nonce and PKCE kept server-side and bound to this browser by a
// SameSite=Lax cookie. The callback's outcome is a redirect the SPA understands.
import { hash, randomBytes } from 'node:crypto';
import type { AuditMethod } from '@card-console/shared/api/audit';
import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { Config } from '../../env';
import type { ApiRoutes } from '../../http/api-router';
import { AppError } from '../../http/app-error';
import type { AuditStore } from '../../http/deps';
import type { OneTimeStore } from '../../platform/security/one-time-store';
import { activeSession, type SessionService } from '../../platform/sessions/session-service';
import { type AuthorizationSecrets, ProviderUnavailable, RelyingParty } from './relying-party';

/** A sign-in at the provider must come back within this long. */
export const PENDING_TTL_MS = 10 * 60_000;
/** Clock difference allowed between the provider's auth_time and our step-up request. */
const AUTH_TIME_SKEW_MS = 30_000;

export interface SsoRoutesDeps {
  rp: RelyingParty;
  /** Pending sign-ins, taken once by their callback. */
  pending: OneTimeStore;
  sessions: SessionService;
  audit: AuditStore;
  logger: Logger;
  config: Pick<Config, 'publicOrigin' | 'allowedOrigins' | 'cookie' | 'sessionSecret'>;
}

interface Pending extends AuthorizationSecrets {
  purpose: 'signIn' | 'stepUp';
  returnTo: string;
  redirectUri: string;
  /**
   * Wall-clock ms when the request was made: compared with the provider's `auth_time`, which
   * comes from the provider's clock, not ours (openid-client checks the token's times against
   * the wall clock too), so not the injected clock.
   */
  startedAt: number;
  /** Step-up: the store key of the session asking. */
  sessionKey?: string;
}

const returnToQuery = z.strictObject({ returnTo: z.string().max(2048).optional() });

/** What the callback reads itself; the library reads the whole URL again. */
const callbackQuery = z.looseObject({
  state: z.string().min(1).max(512).optional(),
  code: z.string().min(1).max(4096).optional(),
  error: z
    .string()
    .max(100)
    .regex(/^[\w.-]*$/)
    .optional(),
});

/** Only ever back into this app: a path, never another origin or the sign-in page. */
export function safeReturnTo(target: string | undefined): string {
  if (!target?.startsWith('/') || target.startsWith('//') || target.startsWith('/\\')) return '/';
  if (target.startsWith('/api/') || target === '/sign-in' || target.startsWith('/sign-in?'))
    return '/';
  return target;
}

export function ssoRoutes(deps: SsoRoutesDeps): ApiRoutes {
  const { rp, pending, sessions, audit, logger, config } = deps;
  const bindingCookie = config.cookie.secure ? '__Host-cc_sso' : 'cc_sso';
  const cookieOptions = {
    httpOnly: true,
    // Lax: the provider's redirect back is a cross-site top-level GET, which must carry it.
    sameSite: 'lax' as const,
    path: '/',
    secure: config.cookie.secure,
  };
  const keyOf = (binding: string, state: string) =>
    `sso:${hash('sha256', `${config.sessionSecret}|${binding}|${state}`, 'base64url')}`;

  /** This browser's binding: the one it holds, or a new one set on `res`. */
  const binding = (req: Request, res: Response): string => {
    const held = readCookie(req, bindingCookie);
    if (held) return held;
    const fresh = randomBytes(32).toString('base64url');
    res.cookie(bindingCookie, fresh, { ...cookieOptions, maxAge: PENDING_TTL_MS });
    return fresh;
  };

  /** The callback address on the origin the person opened (demo: any loopback spelling). */
  const redirectUriFor = (req: Request): string => {
    const origin = `${req.protocol}://${req.get('host') ?? ''}`;
    const base = config.allowedOrigins.includes(origin) ? origin : config.publicOrigin;
    return `${base}/api/sso/callback`;
  };

  /**
   * Sends the browser to the provider with a fresh pending sign-in. A navigation answers with
   * redirects only: when the provider is down, back to where the person was, saying so.
   */
  const begin = async (
    req: Request,
    res: Response,
    purpose: Pending['purpose'],
    extra: { maxAge?: number; loginHint?: string; sessionKey?: string },
  ) => {
    const query = returnToQuery.safeParse(req.query);
    const returnTo = safeReturnTo(query.success ? query.data.returnTo : undefined);
    const secrets = RelyingParty.newSecrets();
    const redirectUri = redirectUriFor(req);
    let url: URL;
    try {
      url = await rp.authorizationUrl(secrets, {
        redirectUri,
        ...(extra.maxAge !== undefined ? { maxAge: extra.maxAge } : {}),
        ...(extra.loginHint ? { loginHint: extra.loginHint } : {}),
      });
    } catch (error) {
      if (!(error instanceof ProviderUnavailable)) throw error;
      logger.error({ err: error, requestId: req.requestId }, 'single sign-on provider unavailable');
      return res.redirect(
        302,
        purpose === 'signIn' ? '/sign-in?sso=unavailable' : withStepUpFailed(returnTo),
      );
    }
    const record: Pending = {
      ...secrets,
      purpose,
      returnTo,
      redirectUri,
      startedAt: Date.now(),
      ...(extra.sessionKey ? { sessionKey: extra.sessionKey } : {}),
    };
    await pending.put(
      keyOf(binding(req, res), secrets.state),
      JSON.stringify(record),
      PENDING_TTL_MS,
    );
    res.redirect(302, url.toString());
  };

  const record = async (
    req: Request,
    entry: {
      action: 'session.signIn' | 'session.stepUp';
      outcome: 'success' | 'failed';
      method: AuditMethod;
      actor?: string | undefined;
      role?: 'finance' | 'admin' | undefined;
      detail?: string;
    },
  ) => {
    await audit.append({
      actor: entry.actor ?? '(unknown account)',
      ...(entry.role ? { role: entry.role } : {}),
      action: entry.action,
      outcome: entry.outcome,
      method: entry.method,
      ...(entry.detail ? { detail: entry.detail.slice(0, 300) } : {}),
      requestId: req.requestId,
    });
  };

  return {
    'GET /api/sso/start': (req, res) => begin(req, res, 'signIn', {}),

    'GET /api/sso/step-up': async (req, res) => {
      const session = activeSession(req);
      if (!session?.record.sso) {
        // Only a single sign-on session can confirm at the provider; the SPA never offers it
        // to others, so this is a stale link: back, with the step-up not done.
        const query = returnToQuery.safeParse(req.query);
        return res.redirect(
          302,
          withStepUpFailed(safeReturnTo(query.success ? query.data.returnTo : undefined)),
        );
      }
      await begin(req, res, 'stepUp', {
        maxAge: 0,
        loginHint: session.record.email,
        sessionKey: session.key,
      });
    },

    'GET /api/sso/callback': async (req, res) => {
      const query = callbackQuery.safeParse(req.query);
      const held = readCookie(req, bindingCookie);
      const state = query.success ? query.data.state : undefined;
      const text = held && state ? await pending.take(keyOf(held, state)) : undefined;
      const started = text ? (JSON.parse(text) as Pending) : undefined;
      const failedSignIn = async (detail: string, actor?: string) => {
        await record(req, {
          action: 'session.signIn',
          outcome: 'failed',
          method: 'sso',
          actor,
          detail,
        });
        res.redirect(302, '/sign-in?sso=failed');
      };

      if (!started) {
        // A forged or replayed callback, another browser's, or one that came back too late.
        return failedSignIn(
          !query.success ? 'malformed callback' : 'no matching sign-in in progress (state)',
        );
      }
      const failed =
        started.purpose === 'stepUp'
          ? async (detail: string) => {
              await record(req, {
                action: 'session.stepUp',
                outcome: 'failed',
                method: 'provider',
                actor: req.actor?.email,
                role: req.actor?.role,
                detail,
              });
              res.redirect(302, withStepUpFailed(started.returnTo));
            }
          : failedSignIn;
      if (started.purpose === 'stepUp' && started.sessionKey) {
        // The session cookie is SameSite=Strict and stays behind on this cross-site redirect:
        // the pending record, bound to this browser, names the session.
        await sessions.loadByKey(req, started.sessionKey);
      }
      if (query.success && query.data.error) {
        return failed(`the provider answered ${query.data.error}`);
      }

      const callbackUrl = new URL(started.redirectUri);
      callbackUrl.search = new URL(req.url, 'http://callback.invalid').search;
      let identity: Awaited<ReturnType<RelyingParty['finish']>>;
      try {
        identity = await rp.finish(
          callbackUrl,
          started,
          started.purpose === 'stepUp' ? { maxAge: 0 } : {},
        );
      } catch (error) {
        logger.warn({ err: error, requestId: req.requestId }, 'single sign-on callback refused');
        return failed(`refused: ${errorSummary(error)}`);
      }

      if (started.purpose === 'stepUp') {
        const session = activeSession(req);
        if (!session?.record.sso || session.key !== started.sessionKey) {
          return failed('the session that asked has ended');
        }
        if (identity.sub !== session.record.sso.sub) {
          return failed('another person signed in at the provider');
        }
        if (
          identity.authTime === undefined ||
          identity.authTime * 1000 < started.startedAt - AUTH_TIME_SKEW_MS
        ) {
          return failed('the provider did not authenticate the person again (auth_time)');
        }
        await sessions.recordStepUp(req, res);
        await record(req, {
          action: 'session.stepUp',
          outcome: 'success',
          method: 'provider',
          actor: session.record.email,
          role: session.record.role,
        });
        return res.redirect(302, started.returnTo);
      }

      if (!identity.email) return failedSignIn('the ID token has no verified email claim');
      if (!identity.role) {
        // Signed in at the provider, but nothing maps them to a role: no session, ever.
        await record(req, {
          action: 'session.signIn',
          outcome: 'failed',
          method: 'sso',
          actor: identity.email,
          detail: 'no mapped role',
        });
        return res.redirect(302, '/no-access');
      }
      await sessions.start(
        req,
        res,
        { email: identity.email, role: identity.role },
        { steppedUp: false, method: 'sso', sso: { sub: identity.sub, idToken: identity.idToken } },
      );
      await record(req, {
        action: 'session.signIn',
        outcome: 'success',
        method: 'sso',
        actor: identity.email,
        role: identity.role,
      });
      res.redirect(302, started.returnTo);
    },
  };
}

function withStepUpFailed(path: string): string {
  return `${path}${path.includes('?') ? '&' : '?'}stepUp=failed`;
}

/**
 * The library's error code and message, and its cause's (which names the claim: "unexpected
 * JWT "nonce" claim value"), bounded. Never a token: the library's messages quote none.
 */
function errorSummary(error: unknown): string {
  const { code, message, cause } = error as { code?: unknown; message?: unknown; cause?: unknown };
  const text = typeof message === 'string' ? message : String(error);
  const causeMessage = (cause as { message?: unknown } | undefined)?.message;
  const because =
    typeof causeMessage === 'string' && causeMessage !== text ? ` (${causeMessage})` : '';
  return `${typeof code === 'string' ? `${code}: ` : ''}${text}${because}`.slice(0, 240);
}

function readCookie(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    const value = part.slice(eq + 1).trim();
    return /^[A-Za-z0-9_-]{43}$/.test(value) ? value : undefined;
  }
  return undefined;
}

/** Without single sign-on configured, its endpoints are not there (404, as any unknown path). */
export function ssoNotConfigured(): ApiRoutes {
  const absent = () => {
    throw new AppError(404, 'sso_not_configured', 'Single sign-on is not set up here.');
  };
  return {
    'GET /api/sso/start': absent,
    'GET /api/sso/step-up': absent,
    'GET /api/sso/callback': absent,
  };
}
