// The BFF as an OpenID Connect relying party (openid-client): a confidential client using the
// Authorization Code flow with PKCE, `state` and `nonce`, the ID token checked by the library
// (signature, issuer, audience, expiry, nonce, and auth_time against max_age).
import type { Role } from '@card-console/shared/api/meta';
import * as oidc from 'openid-client';
import { z } from 'zod';
import type { SsoConfig } from '../../env';
import { findCardNumbers } from '../../platform/security/card-numbers';

/** What a sign-in at the provider proved, read from the checked ID token. */
export interface ProviderIdentity {
  /** The provider (the token's `iss`) and its subject: together, who this is at the provider. */
  issuer: string;
  sub: string;
  /**
   * Lower-cased, and only when the provider vouches for it (`email_verified` exactly `true`)
   * and it is usable as a name (`identityEmail`); the person's name in Card Console.
   */
  email: string | undefined;
  /** From the role claim, when that claim is one the provider vouches for (`verifiedClaim`). */
  role: Role | undefined;
  /** Unix seconds of the person's authentication at the provider. */
  authTime: number | undefined;
  idToken: string;
}

/** The secrets of one authorization request, kept server-side until its callback. */
export interface AuthorizationSecrets {
  state: string;
  nonce: string;
  codeVerifier: string;
}

/** The provider could not be reached or answered wrongly; the message is for the log. */
export class ProviderUnavailable extends Error {
  override name = 'ProviderUnavailable';
}

/** How long a call to the provider (discovery, token, keys) may take. */
const PROVIDER_TIMEOUT_SECONDS = 10;

/** How long discovery waits before trying again after a failure: 2 s, doubling up to five minutes. */
const DISCOVERY_RETRY_MS = { first: 2_000, most: 300_000 };

/**
 * How discovery and every later call reach the provider: within the timeout, and over plain
 * http only for a loopback provider's http issuer (the demo's, tests'; env.ts refuses others).
 * An https provider's metadata naming an http endpoint is refused.
 */
export function discoveryOptions(issuer: URL): oidc.DiscoveryRequestOptions {
  return {
    timeout: PROVIDER_TIMEOUT_SECONDS,
    ...(issuer.protocol === 'http:' ? { execute: [oidc.allowInsecureRequests] } : {}),
  };
}

export class RelyingParty {
  private configuration: Promise<oidc.Configuration> | undefined;
  private discovered = false;
  /** Why the last discovery failed, cause included (for the log and /readyz). */
  private lastFailure: string | undefined;

  constructor(private readonly sso: SsoConfig) {}

  get label(): string {
    return this.sso.label;
  }

  get issuer(): string {
    return this.sso.issuer;
  }

  /** Discovery once; a failed discovery is tried again at the next use. */
  private async config(): Promise<oidc.Configuration> {
    if (!this.configuration) {
      const issuer = new URL(this.sso.issuer);
      // The secret is the client's authentication; openid-client reads it from nowhere else.
      this.configuration = oidc
        .discovery(
          issuer,
          this.sso.clientId,
          undefined,
          oidc.ClientSecretBasic(this.sso.clientSecret),
          discoveryOptions(issuer),
        )
        .then((configuration) => {
          this.discovered = true;
          this.lastFailure = undefined;
          return configuration;
        })
        .catch((error: unknown) => {
          this.configuration = undefined;
          this.lastFailure = failureWithCauses(error);
          throw new ProviderUnavailable(
            `discovery at ${this.sso.issuer} failed: ${this.lastFailure}`,
          );
        });
    }
    return this.configuration;
  }

  /**
   * At start-up: discovers the provider without holding start-up up, and while that fails
   * tries again in the background, logging each failure with its cause (a private CA's
   * "self-signed certificate in certificate chain", not just "fetch failed"). Returns a stop.
   */
  discoverInBackground(log: {
    info(fields: object, message: string): void;
    error(fields: object, message: string): void;
  }): () => void {
    let timer: NodeJS.Timeout | undefined;
    let stopped = false;
    const attempt = (waitMs: number) => {
      this.config().then(
        () => log.info({ issuer: this.sso.issuer }, 'identity provider discovered'),
        () => {
          if (stopped) return;
          log.error(
            { issuer: this.sso.issuer, cause: this.lastFailure, retryInSeconds: waitMs / 1000 },
            'identity provider discovery failed',
          );
          timer = setTimeout(() => attempt(Math.min(waitMs * 2, DISCOVERY_RETRY_MS.most)), waitMs);
          timer.unref();
        },
      );
    };
    attempt(DISCOVERY_RETRY_MS.first);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }

  /** Whether discovery has succeeded; otherwise why not (undefined while the first is under way). */
  discoveryState(): { discovered: true } | { discovered: false; failure: string | undefined } {
    return this.discovered
      ? { discovered: true }
      : { discovered: false, failure: this.lastFailure };
  }

  /** Fresh state, nonce and PKCE verifier for one authorization request. */
  static newSecrets(): AuthorizationSecrets {
    return {
      state: oidc.randomState(),
      nonce: oidc.randomNonce(),
      codeVerifier: oidc.randomPKCECodeVerifier(),
    };
  }

  /**
   * Where to send the browser. `maxAge: 0` asks the provider to authenticate the person
   * again whatever session it holds (step-up); `loginHint` names who is expected.
   */
  async authorizationUrl(
    secrets: AuthorizationSecrets,
    options: { redirectUri: string; maxAge?: number; loginHint?: string },
  ): Promise<URL> {
    const config = await this.config();
    const parameters: Record<string, string> = {
      redirect_uri: options.redirectUri,
      response_type: 'code',
      scope: ['openid', ...this.sso.scopes].join(' '),
      state: secrets.state,
      nonce: secrets.nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(secrets.codeVerifier),
      code_challenge_method: 'S256',
    };
    if (options.maxAge !== undefined) {
      parameters.max_age = String(options.maxAge);
      parameters.prompt = 'login';
    }
    if (options.loginHint) parameters.login_hint = options.loginHint;
    return oidc.buildAuthorizationUrl(config, parameters);
  }

  /**
   * Exchanges the callback's code (checking state, PKCE and the ID token's nonce; with
   * `maxAge`, that `auth_time` is that recent) and reads the person from the ID token.
   * Throws the library's error when anything does not hold.
   */
  async finish(
    callbackUrl: URL,
    secrets: AuthorizationSecrets,
    options: { maxAge?: number } = {},
  ): Promise<ProviderIdentity> {
    const config = await this.config();
    const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
      pkceCodeVerifier: secrets.codeVerifier,
      expectedState: secrets.state,
      expectedNonce: secrets.nonce,
      idTokenExpected: true,
      ...(options.maxAge !== undefined ? { maxAge: options.maxAge } : {}),
    });
    const claims = tokens.claims();
    if (!claims || !tokens.id_token) throw new Error('the provider returned no ID token');
    return {
      issuer: claims.iss,
      sub: claims.sub,
      email: identityEmail(verifiedClaim(claims, 'email', this.sso.emailVerifiedClaim)),
      role: mapRole(
        verifiedClaim(claims, this.sso.roleClaim, this.sso.emailVerifiedClaim),
        this.sso.roleMap,
      ),
      authTime: typeof claims.auth_time === 'number' ? claims.auth_time : undefined,
      idToken: tokens.id_token,
    };
  }

  /**
   * The provider's end-session URL (RP-initiated logout) when it offers one, with the ID
   * token as the hint and where to come back to.
   */
  async endSessionUrl(idToken: string, postLogoutRedirectUri: string): Promise<string | undefined> {
    const config = await this.config().catch(() => undefined);
    if (!config?.serverMetadata().end_session_endpoint) return undefined;
    return oidc
      .buildEndSessionUrl(config, {
        id_token_hint: idToken,
        post_logout_redirect_uri: postLogoutRedirectUri,
      })
      .toString();
  }
}

/**
 * Claims with a verification flag (OpenID Connect Core §5.1): the person types them in at many
 * providers, so they count only when the provider says it checked them. `email`'s flag is
 * `email_verified` unless the provider names another (Entra ID: `xms_edov`).
 */
const VERIFICATION_FLAGS: Readonly<Record<string, string>> = {
  email: 'email_verified',
  phone_number: 'phone_number_verified',
};

/**
 * A claim's value when the provider vouches for it: `email` and `phone_number` only with their
 * flag exactly `true` (absent — Entra ID never sends `email_verified` — or the string "false",
 * as Cognito sends it, is not); any other claim as the provider sent it.
 */
export function verifiedClaim(
  claims: Readonly<Record<string, unknown>>,
  name: string,
  emailVerifiedClaim = VERIFICATION_FLAGS.email,
): unknown {
  const flag = name === 'email' ? emailVerifiedClaim : VERIFICATION_FLAGS[name];
  if (flag === undefined) return claims[name];
  return claims[flag] === true ? claims[name] : undefined;
}

const identityEmailSchema = z.email().max(254);

/**
 * An email usable as a person's name in sessions, the audit trail and passkeys: a well-formed
 * address, lower-cased, with no control, format (bidi) or line-breaking characters and no card
 * number. Anything else is no identity at all.
 */
export function identityEmail(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const email = value.trim().toLowerCase();
  if (/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(email)) return undefined;
  if (!identityEmailSchema.safeParse(email).success) return undefined;
  return findCardNumbers(email).length > 0 ? undefined : email;
}

/**
 * The role a claim maps to: its value, or any of its values when it is a list. Admin wins
 * over finance; nothing mapped is no role (no session).
 */
export function mapRole(claim: unknown, roleMap: Readonly<Record<string, Role>>): Role | undefined {
  const values = Array.isArray(claim) ? claim : [claim];
  let role: Role | undefined;
  for (const value of values) {
    if (typeof value !== 'string' || !Object.hasOwn(roleMap, value)) continue;
    const mapped = roleMap[value];
    if (mapped === 'admin') return 'admin';
    role = mapped;
  }
  return role;
}

/**
 * An error's message followed by its causes' (undici's "fetch failed" hides the TLS or DNS
 * reason in `cause`), with their codes, bounded. Never a token: these are network errors.
 */
export function failureWithCauses(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < 5; depth++) {
    const { message, code, cause } = current as {
      message?: unknown;
      code?: unknown;
      cause?: unknown;
    };
    const text = typeof message === 'string' ? message : String(current);
    parts.push(typeof code === 'string' && !text.includes(code) ? `${text} (${code})` : text);
    current = cause;
  }
  return parts.join(': ').slice(0, 400);
}
