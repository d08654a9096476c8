// Single sign-on over OpenID Connect: full-page navigations (no X-CSRF header is possible),
// protected instead by state, nonce and PKCE kept server-side and bound to this browser by a
// SameSite=Lax cookie. The callback's outcome is a redirect the SPA understands.
import { hash, randomBytes } from 'node:crypto';
import type { AuditMethod } from '@card-console/shared/api/audit';
import type { Role } from '@card-console/shared/api/meta';
import { ssoCallbackQuerySchema, ssoReturnQuerySchema } from '@card-console/shared/api/session';
import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import { AppError } from '../../core/app-error';
import { defineFeature } from '../../core/endpoint';
import type { Config } from '../../env';
import type { AuditStore } from '../../platform/audit/audit-store';
import { type Metrics, noMetrics } from '../../platform/metrics/metrics';
import { maskCardNumbers } from '../../platform/security/card-numbers';
import type { OneTimeStore } from '../../platform/security/one-time-store';
import { RateLimiterMemory, RateLimiterRes } from '../../platform/security/rate-limiter-classes';
import type { RateLimiters } from '../../platform/security/rate-limits';
import { readSessionId } from '../../platform/sessions/session-cookie';
import { activeSession, type SessionService } from '../../platform/sessions/session-service';
import type { PersonDirectory } from '../../platform/users/person-directory';
import {
  type AuthorizationSecrets,
  type ProviderIdentity,
  ProviderUnavailable,
  RelyingParty,
} from './relying-party';

/** A sign-in at the provider must come back within this long. */
export const PENDING_TTL_MS = 10 * 60_000;

export interface SsoRoutesDeps {
  rp: RelyingParty;
  /** Pending sign-ins, taken once by their callback (a store of their own, bounded). */
  pending: OneTimeStore;
  sessions: SessionService;
  /**
   * Who a provider identity is: the person linked to it, or (people store) the person it
   * becomes; with the users file alone, whom it may not be (a local name).
   */
  users: Pick<PersonDirectory, 'find' | 'findLinked' | 'upsertSsoPerson'>;
  limiters: Pick<RateLimiters, 'ssoStartsPerAddress'>;
  audit: AuditStore;
  logger: Logger;
  config: Pick<Config, 'publicOrigin' | 'allowedOrigins' | 'cookie' | 'sessionSecret'>;
  /** Callbacks that signed no one in, by reason (`bff_sso_callback_failures_total`). */
  metrics?: Metrics;
}

interface Pending extends AuthorizationSecrets {
  purpose: 'signIn' | 'stepUp';
  returnTo: string;
  redirectUri: string;
  /** Step-up: the store key of the session asking. */
  sessionKey?: string;
}

/** Callbacks that match no sign-in in progress: logged at most this often a minute, never audited. */
const UNMATCHED_LOG_LINES_PER_MINUTE = 10;

/** Only ever back into this app: a path, never another origin or the sign-in page. */
export function safeReturnTo(target: string | undefined): string {
  if (!target?.startsWith('/') || target.startsWith('//') || target.startsWith('/\\')) return '/';
  if (target.startsWith('/api/') || target === '/sign-in' || target.startsWith('/sign-in?'))
    return '/';
  return target;
}

/** What each single sign-on endpoint does: full-page navigations, answered with redirects. */
interface SsoFlows {
  start(req: Request, res: Response): Promise<void>;
  stepUp(req: Request, res: Response): Promise<void>;
  callback(req: Request, res: Response): Promise<void>;
}

export function ssoFlows(deps: SsoRoutesDeps): SsoFlows {
  const { rp, pending, sessions, users, limiters, audit, logger, config } = deps;
  const failures = deps.metrics ?? noMetrics;
  const logUnmatched = limitedLog(logger, UNMATCHED_LOG_LINES_PER_MINUTE);
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
    const held = readSessionId(req, bindingCookie);
    if (held) return held;
    // The shape of a session id (32 random bytes, base64url), so read as one.
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
    const query = ssoReturnQuerySchema.safeParse(req.query);
    const returnTo = safeReturnTo(query.success ? query.data.returnTo : undefined);
    const refusedTo = purpose === 'signIn' ? '/sign-in?sso=busy' : withStepUpFailed(returnTo);
    try {
      // Every start writes a pending record: per address, so one client cannot fill the store.
      await limiters.ssoStartsPerAddress.consume(req.ip ?? 'unknown');
    } catch (error) {
      if (!(error instanceof RateLimiterRes)) throw error;
      logger.warn({ requestId: req.requestId }, 'single sign-on starts from one address refused');
      return res.redirect(302, refusedTo);
    }
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
      ...(extra.sessionKey ? { sessionKey: extra.sessionKey } : {}),
    };
    try {
      await pending.put(
        keyOf(binding(req, res), secrets.state),
        JSON.stringify(record),
        PENDING_TTL_MS,
      );
    } catch (error) {
      logger.error({ err: error, requestId: req.requestId }, 'pending single sign-on not stored');
      return res.redirect(
        302,
        purpose === 'signIn' ? '/sign-in?sso=unavailable' : withStepUpFailed(returnTo),
      );
    }
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
      // The provider's words and subjects are not ours: never a card number in the trail.
      ...(entry.detail ? { detail: maskCardNumbers(entry.detail).slice(0, 300) } : {}),
      requestId: req.requestId,
    });
  };

  return {
    start: (req, res) => begin(req, res, 'signIn', {}),

    stepUp: async (req, res) => {
      const session = activeSession(req);
      if (!session?.record.sso) {
        // Only a single sign-on session can confirm at the provider; the SPA never offers it
        // to others, so this is a stale link: back, with the step-up not done.
        const query = ssoReturnQuerySchema.safeParse(req.query);
        res.redirect(
          302,
          withStepUpFailed(safeReturnTo(query.success ? query.data.returnTo : undefined)),
        );
        return;
      }
      await begin(req, res, 'stepUp', {
        maxAge: 0,
        loginHint: session.record.email,
        sessionKey: session.key,
      });
    },

    callback: async (req, res) => {
      // A navigation: whatever goes wrong, the browser gets a page to land on, never JSON.
      try {
        await callback(req, res);
      } catch (error) {
        failures.ssoCallbackFailed('error');
        logger.error({ err: error, requestId: req.requestId }, 'single sign-on callback failed');
        if (!res.headersSent) res.redirect(302, '/sign-in?sso=failed');
      }
    },
  };

  async function callback(req: Request, res: Response) {
    const query = ssoCallbackQuerySchema.safeParse(req.query);
    const held = readSessionId(req, bindingCookie);
    const state = query.success ? query.data.state : undefined;
    const text = held && state ? await pending.take(keyOf(held, state)) : undefined;
    const started = text ? (JSON.parse(text) as Pending) : undefined;

    if (!started) {
      failures.ssoCallbackFailed('unmatched');
      // A forged or replayed callback, another browser's, or one that came back too late. Any
      // page can make its visitors' browsers send this, so it earns no audit record (anonymous
      // refusals are logged, not audited), and the log line is rate-limited.
      logUnmatched(
        {
          requestId: req.requestId,
          reason: query.success ? 'no sign-in in progress' : 'malformed',
        },
        'single sign-on callback matched no sign-in in progress',
      );
      return res.redirect(302, '/sign-in?sso=failed');
    }
    // From here the callback belongs to a sign-in this browser started: its outcome is audited.
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
      failures.ssoCallbackFailed('provider_error');
      return failed(`the provider answered ${query.data.error}`);
    }

    const callbackUrl = new URL(started.redirectUri);
    callbackUrl.search = new URL(req.url, 'http://callback.invalid').search;
    let identity: ProviderIdentity;
    try {
      identity = await rp.finish(
        callbackUrl,
        started,
        started.purpose === 'stepUp' ? { maxAge: 0 } : {},
      );
    } catch (error) {
      failures.ssoCallbackFailed('token_refused');
      logger.warn({ err: error, requestId: req.requestId }, 'single sign-on callback refused');
      return failed(`refused: ${errorSummary(error)}`);
    }

    if (started.purpose === 'stepUp') {
      const session = activeSession(req);
      if (!session?.record.sso || session.key !== started.sessionKey) {
        failures.ssoCallbackFailed('step_up_refused');
        return failed('the session that asked has ended');
      }
      if (identity.sub !== session.record.sso.sub) {
        failures.ssoCallbackFailed('step_up_refused');
        return failed('another person signed in at the provider');
      }
      // That the person signed in again just now (auth_time within 30 s of now, with max_age=0)
      // is openid-client's check in `finish`: a token without a fresh auth_time is refused there.
      await record(req, {
        action: 'session.stepUp',
        outcome: 'success',
        method: 'provider',
        actor: session.record.email,
        role: session.record.role,
      });
      await sessions.recordStepUp(req, res);
      return res.redirect(302, started.returnTo);
    }

    const person = await whoSignedIn(identity, users);
    if ('refused' in person) {
      failures.ssoCallbackFailed(person.noRole ? 'no_role' : 'identity_refused');
      if (person.noRole) {
        // Signed in at the provider, but nothing maps them to a role: no session, ever.
        await record(req, {
          action: 'session.signIn',
          outcome: 'failed',
          method: 'sso',
          actor: person.actor,
          detail: person.refused,
        });
        return res.redirect(302, '/no-access');
      }
      return failedSignIn(person.refused, person.actor);
    }
    // Recorded first, as a password sign-in is: a sign-in the trail cannot hold gets no session.
    await record(req, {
      action: 'session.signIn',
      outcome: 'success',
      method: 'sso',
      actor: person.email,
      role: person.role,
    });
    await sessions.start(
      req,
      res,
      { email: person.email, role: person.role },
      {
        steppedUp: false,
        method: 'sso',
        sso: {
          sub: identity.sub,
          idToken: identity.idToken,
          ...(person.linked ? { linked: true } : {}),
        },
        personVersion: person.version,
      },
    );
    res.redirect(302, started.returnTo);
  }
}

type SignedInPerson =
  | { email: string; role: Role; linked: boolean; version?: number | undefined }
  | { refused: string; actor?: string; noRole?: true };

/**
 * Who a provider identity is in Card Console. A person an operator linked to this subject
 * (`pnpm users link`) is that person, with the role set in Card Console, unless disabled.
 * Anyone else is named by the email the provider vouches for, with the role its claims map to,
 * and may never take the name of a person already known by that email: factors, receipts,
 * limits and the audit actor are keyed by that name. With the people store such an identity
 * becomes a person (source `sso`) at its first sign-in, whose role then follows the claims at
 * each sign-in; with the users file alone it signs in without being one.
 */
export async function whoSignedIn(
  identity: Pick<ProviderIdentity, 'issuer' | 'sub' | 'email' | 'role'>,
  users: Pick<PersonDirectory, 'find' | 'findLinked' | 'upsertSsoPerson'>,
): Promise<SignedInPerson> {
  const where = users.upsertSsoPerson ? 'Card Console' : 'the users file';
  const linked = await users.findLinked(identity.issuer, identity.sub);
  if (linked?.disabled) {
    return { refused: `the linked account is disabled in ${where}`, actor: linked.email };
  }
  if (linked && !(users.upsertSsoPerson && linked.source === 'sso')) {
    return { email: linked.email, role: linked.role, linked: true, version: linked.version };
  }
  if (!linked) {
    if (!identity.email) {
      return {
        refused: `the ID token has no usable verified email (email_verified must be true); subject ${identity.sub}`,
      };
    }
    const local = await users.find(identity.email);
    if (local) {
      return {
        refused: `${identity.email} is a${local.disabled ? ' disabled' : ''} ${users.upsertSsoPerson ? 'Card Console' : 'users-file'} account not linked to this provider subject (${identity.sub}); pnpm users link links it`,
      };
    }
  }
  const email = linked?.email ?? (identity.email as string);
  if (!identity.role) return { refused: 'no mapped role', actor: email, noRole: true };
  if (!users.upsertSsoPerson) return { email, role: identity.role, linked: false };
  const person = await users.upsertSsoPerson({
    issuer: identity.issuer,
    subject: identity.sub,
    email,
    role: identity.role,
  });
  if (!person) {
    return {
      refused: `${email} cannot become a Card Console account for this provider subject (${identity.sub}): another account has that email, or Card Console does not accept it`,
    };
  }
  if (person.disabled) {
    return { refused: `the linked account is disabled in ${where}`, actor: person.email };
  }
  return { email: person.email, role: person.role, linked: true, version: person.version };
}

/**
 * A warn-level logger for what anyone can cause: at most `perMinute` lines a minute from this
 * process; the lines left out are counted into the next one written.
 */
export function limitedLog(logger: Pick<Logger, 'warn'>, perMinute: number) {
  const limiter = new RateLimiterMemory({ points: perMinute, duration: 60 });
  let suppressed = 0;
  return (fields: Record<string, unknown>, message: string) => {
    limiter.consume('line').then(
      () => {
        logger.warn({ ...fields, ...(suppressed > 0 ? { suppressed } : {}) }, message);
        suppressed = 0;
      },
      () => {
        suppressed++;
      },
    );
  };
}

function withStepUpFailed(path: string): string {
  return `${path}${path.includes('?') ? '&' : '?'}stepUp=failed`;
}

/**
 * The library's error code and message, and its cause's (which names the claim: "unexpected
 * JWT "nonce" claim value"), bounded. Never a token: the library's messages quote none.
 */
export function errorSummary(error: unknown): string {
  const { code, message, cause } = error as { code?: unknown; message?: unknown; cause?: unknown };
  const text = typeof message === 'string' ? message : String(error);
  const causeMessage = (cause as { message?: unknown } | undefined)?.message;
  const because =
    typeof causeMessage === 'string' && causeMessage !== text ? ` (${causeMessage})` : '';
  return `${typeof code === 'string' ? `${code}: ` : ''}${text}${because}`.slice(0, 240);
}

/** Without single sign-on configured, its endpoints are not there (404, as any unknown path). */
const notConfigured: SsoFlows = {
  start: absent,
  stepUp: absent,
  callback: absent,
};
async function absent(): Promise<void> {
  throw new AppError(404, 'sso_not_configured', 'Single sign-on is not set up here.');
}

export interface SsoDeps {
  /** Single sign-on, when it is configured. */
  sso: SsoRoutesDeps | undefined;
}

/**
 * Single sign-on over OpenID Connect: full-page navigations (no X-CSRF header is possible),
 * protected instead by state, nonce and PKCE kept server-side and bound to this browser. A
 * navigation answers with a redirect whatever it was sent, never a 400: each reads its query
 * itself (the contract's `ssoReturnQuerySchema`, `ssoCallbackQuerySchema`).
 */
export const ssoFeature = defineFeature(
  'sso',
  ({ sso }: SsoDeps) => (sso ? ssoFlows(sso) : notConfigured),
  (endpoint) => [
    endpoint('sso.start', {
      summary: "Sign in at the company's identity provider (a navigation)",
      example: '/api/sso/start',
      handler: ({ req, res, services }) => services.start(req, res),
    }),
    endpoint('sso.stepUp', {
      summary: 'Confirm at the identity provider as a step-up (a navigation)',
      example: '/api/sso/step-up',
      handler: ({ req, res, services }) => services.stepUp(req, res),
    }),
    endpoint('sso.callback', {
      summary: "The identity provider's answer (a navigation)",
      example: '/api/sso/callback?state=s&code=c',
      handler: ({ req, res, services }) => services.callback(req, res),
    }),
  ],
);
