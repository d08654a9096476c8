// Test support: a real OpenID Provider (oidc-provider, over loopback HTTP) with people a test
// can change between sign-ins, and the single sign-on walk a browser makes against the BFF.
import { randomBytes } from 'node:crypto';
import type { Role } from '@card-console/shared/api/meta';
import {
  type ProviderClient,
  type ProviderPerson,
  startIdentityProvider,
} from '../demo/identity-provider';
import type { SsoConfig } from '../env';
import { type BrowserPage, SsoBrowser, type StoppedRedirect } from './sso-browser';

export const providerPassword = 'provider-password-for-tests';
export const ssoPeople: Record<Role, ProviderPerson> = {
  finance: {
    sub: 'sub-finance-1',
    email: 'sso-finance@example.test',
    name: 'Fin Ance',
    groups: ['cc-finance'],
  },
  admin: {
    sub: 'sub-admin-1',
    email: 'sso-admin@example.test',
    name: 'Ad Min',
    groups: ['cc-admins'],
  },
};
export const ssoRoleMap: Record<string, Role> = { 'cc-finance': 'finance', 'cc-admins': 'admin' };

export interface TestIdentityProvider {
  issuer: string;
  /** The console's client at this provider, as the BFF's config names it. */
  sso: SsoConfig;
  /** Who can sign in at the provider, by email: change a person's groups between sign-ins. */
  people: Map<string, ProviderPerson>;
  /** The callback address registered for the console (PUBLIC_ORIGIN's). */
  callback: string;
  close(): Promise<void>;
}

/**
 * A provider whose console client sends people back to `publicOrigin`'s callback. `clients`
 * adds others (a second relying party, for a token issued to someone else).
 */
export async function startTestIdentityProvider(
  publicOrigin: string,
  options: { clients?: ProviderClient[]; idTokenTtlSeconds?: (clientId: string) => number } = {},
): Promise<TestIdentityProvider> {
  const people = new Map(Object.values(ssoPeople).map((p) => [p.email, { ...p }]));
  const client: ProviderClient = {
    clientId: 'card-console-test',
    clientSecret: randomBytes(24).toString('base64url'),
    redirectUris: [`${publicOrigin}/api/sso/callback`],
    postLogoutRedirectUris: [`${publicOrigin}/sign-in`],
  };
  const provider = await startIdentityProvider({
    clients: [client, ...(options.clients ?? [])],
    findPerson: (email) => people.get(email),
    checkPassword: (email, password) => people.has(email) && password === providerPassword,
    ...(options.idTokenTtlSeconds ? { idTokenTtlSeconds: options.idTokenTtlSeconds } : {}),
    onError: () => {},
  });
  return {
    issuer: provider.issuer,
    people,
    callback: `${publicOrigin}/api/sso/callback`,
    sso: {
      issuer: provider.issuer,
      clientId: client.clientId,
      clientSecret: client.clientSecret,
      roleClaim: 'groups',
      roleMap: ssoRoleMap,
      scopes: ['email', 'profile', 'groups'],
      label: 'Test IdP',
    },
    close: () => provider.close(),
  };
}

/**
 * A browser's walk up to the provider's redirect back: the console's start link (appUrl is
 * where the BFF really listens), the provider's sign-in form filled in, and the stop before
 * the callback is requested. Returns the callback URL (code and state) and the browser.
 */
export async function walkToCallback(
  appUrl: string,
  idp: Pick<TestIdentityProvider, 'callback'>,
  email: string,
  options: {
    browser?: SsoBrowser;
    path?: string;
    /** Changes the authorization request on its way to the provider (nonce, state…). */
    tamper?: (authorizationUrl: URL) => void;
    /** Cookies for the console (a session cookie, for a step-up start). */
    cookie?: string;
  } = {},
): Promise<{ browser: SsoBrowser; stopped: StoppedRedirect; login: BrowserPage }> {
  const browser = options.browser ?? new SsoBrowser();
  if (options.cookie) browser.storeCookies(appUrl, [`${options.cookie}; Path=/; SameSite=Strict`]);
  // The start answers with a redirect to the provider: stop there, maybe tamper, then go on.
  const start = await browser.followUntil(
    `${appUrl}${options.path ?? '/api/sso/start?returnTo=%2Fcards'}`,
    'http',
  );
  const authorization = new URL(start.url);
  options.tamper?.(authorization);
  const login = await browser.follow(authorization, { initiator: appUrl });
  const stopped = await browser.signInAtProviderUntil(login, email, providerPassword, idp.callback);
  return { browser, stopped, login };
}
