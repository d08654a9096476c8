// The BFF as an OpenID Connect relying party (openid-client): a confidential client using the
// Authorization Code flow with PKCE, `state` and `nonce`, the ID token checked by the library
// (signature, issuer, audience, expiry, nonce, and auth_time against max_age).
import type { Role } from '@card-console/shared/api/meta';
import * as oidc from 'openid-client';
import type { SsoConfig } from '../../env';

/** What a sign-in at the provider proved, read from the checked ID token. */
export interface ProviderIdentity {
  sub: string;
  /** Lower-cased; the person's name in Card Console (sessions, audit, passkeys). */
  email: string | undefined;
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

export class RelyingParty {
  private configuration: Promise<oidc.Configuration> | undefined;

  constructor(private readonly sso: SsoConfig) {}

  get label(): string {
    return this.sso.label;
  }

  /** Discovery once; a failed discovery is tried again at the next sign-in. */
  private async config(): Promise<oidc.Configuration> {
    if (!this.configuration) {
      const issuer = new URL(this.sso.issuer);
      // Plain http only to a loopback provider (the demo's, tests'); env.ts refuses others.
      const insecure = issuer.protocol === 'http:';
      this.configuration = oidc
        .discovery(
          issuer,
          this.sso.clientId,
          { client_secret: this.sso.clientSecret },
          oidc.ClientSecretBasic(this.sso.clientSecret),
          {
            timeout: PROVIDER_TIMEOUT_SECONDS,
            ...(insecure ? { execute: [oidc.allowInsecureRequests] } : {}),
          },
        )
        .catch((error: unknown) => {
          this.configuration = undefined;
          throw new ProviderUnavailable(
            `discovery at ${this.sso.issuer} failed: ${(error as Error).message}`,
          );
        });
    }
    return this.configuration;
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
    const email =
      typeof claims.email === 'string' && claims.email_verified !== false
        ? claims.email.trim().toLowerCase()
        : undefined;
    return {
      sub: claims.sub,
      email,
      role: mapRole(claims[this.sso.roleClaim], this.sso.roleMap),
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
