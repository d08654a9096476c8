// The relying party against a real OpenID Provider (oidc-provider over loopback HTTP), without
// the BFF around it: what the authorization request asks for, what a finished sign-in reads,
// discovery done once, and how an unreachable provider fails.
import * as oidc from 'openid-client';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { freePort } from '../../test/engines/free-port';
import { SsoBrowser } from '../../test/sso-browser';
import {
  providerPassword,
  ssoPeople,
  startTestIdentityProvider,
  type TestIdentityProvider,
} from '../../test/test-identity-provider';
import { ProviderUnavailable, RelyingParty } from './relying-party';

let idp: TestIdentityProvider;
beforeAll(async () => {
  // The console's callback is never requested: the browser stops before it.
  idp = await startTestIdentityProvider(`http://127.0.0.1:${await freePort()}`);
});
afterAll(() => idp?.close());
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

/** A browser signs in at the provider; the callback URL it was sent back to (code and state). */
async function signInAt(url: URL, email: string): Promise<URL> {
  const browser = new SsoBrowser();
  const login = await browser.follow(url);
  const stopped = await browser.signInAtProviderUntil(login, email, providerPassword, idp.callback);
  return new URL(stopped.url);
}

describe('RelyingParty against a real provider', () => {
  it('names its provider and button as configured', () => {
    const rp = new RelyingParty(idp.sso);
    expect(rp.issuer).toBe(idp.issuer);
    expect(rp.label).toBe('Test IdP');
  });

  it('asks for a code with PKCE (S256), state, nonce and the configured scopes after openid', async () => {
    const rp = new RelyingParty(idp.sso);
    const secrets = RelyingParty.newSecrets();
    const url = await rp.authorizationUrl(secrets, { redirectUri: idp.callback });
    const asked = Object.fromEntries(url.searchParams);
    expect(asked).toEqual({
      client_id: idp.sso.clientId,
      redirect_uri: idp.callback,
      response_type: 'code',
      scope: 'openid email profile groups',
      state: secrets.state,
      nonce: secrets.nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(secrets.codeVerifier),
      code_challenge_method: 'S256',
    });
  });

  it('a step-up asks the provider to sign the person in again (max_age=0, prompt=login) and names who', async () => {
    const rp = new RelyingParty(idp.sso);
    const url = await rp.authorizationUrl(RelyingParty.newSecrets(), {
      redirectUri: idp.callback,
      maxAge: 0,
      loginHint: ssoPeople.admin.email,
    });
    expect(url.searchParams.get('max_age')).toBe('0');
    expect(url.searchParams.get('prompt')).toBe('login');
    expect(url.searchParams.get('login_hint')).toBe(ssoPeople.admin.email);
  });

  it('reads who signed in from the checked ID token: issuer, subject, verified email, mapped role, auth_time', async () => {
    const rp = new RelyingParty(idp.sso);
    const secrets = RelyingParty.newSecrets();
    const before = Math.floor(Date.now() / 1000);
    const url = await rp.authorizationUrl(secrets, { redirectUri: idp.callback, maxAge: 0 });
    const callback = await signInAt(url, ssoPeople.admin.email);
    const identity = await rp.finish(callback, secrets, { maxAge: 0 });
    expect(identity).toEqual({
      issuer: idp.issuer,
      sub: ssoPeople.admin.sub,
      email: ssoPeople.admin.email,
      role: 'admin',
      authTime: expect.any(Number),
      idToken: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
    });
    expect(identity.authTime).toBeGreaterThanOrEqual(before - 1);
    expect(identity.authTime).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));
  });

  it('with maxAge, refuses a sign-in the provider did not make recently; without, takes it', async () => {
    const rp = new RelyingParty(idp.sso);
    const stale = RelyingParty.newSecrets();
    const staleCallback = await signInAt(
      await rp.authorizationUrl(stale, { redirectUri: idp.callback }),
      ssoPeople.finance.email,
    );
    const plain = RelyingParty.newSecrets();
    const plainCallback = await signInAt(
      await rp.authorizationUrl(plain, { redirectUri: idp.callback }),
      ssoPeople.finance.email,
    );
    // 45 s later (past openid-client's 30 s tolerance, within the code's 60 s life), on the
    // provider's clock and ours alike: both run in this process.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 45_000 });
    await expect(rp.finish(staleCallback, stale, { maxAge: 0 })).rejects.toMatchObject({
      message: 'JWT timestamp claim value failed validation',
      cause: {
        message: 'too much time has elapsed since the last End-User authentication',
        cause: { claim: 'auth_time' },
      },
    });
    await expect(rp.finish(plainCallback, plain)).resolves.toMatchObject({
      sub: ssoPeople.finance.sub,
      role: 'finance',
    });
  });

  it('discovers the provider once, however many sign-ins it starts', async () => {
    const fetches = vi.spyOn(globalThis, 'fetch');
    const rp = new RelyingParty(idp.sso);
    await Promise.all([
      rp.authorizationUrl(RelyingParty.newSecrets(), { redirectUri: idp.callback }),
      rp.authorizationUrl(RelyingParty.newSecrets(), { redirectUri: idp.callback }),
    ]);
    await rp.authorizationUrl(RelyingParty.newSecrets(), { redirectUri: idp.callback });
    const discoveries = fetches.mock.calls.filter(([input]) =>
      String(input instanceof Request ? input.url : input).includes(
        '/.well-known/openid-configuration',
      ),
    );
    expect(discoveries).toHaveLength(1);
    expect(rp.discoveryState()).toEqual({ discovered: true });
  });

  it('logs the discovery it made in the background', async () => {
    const rp = new RelyingParty(idp.sso);
    const infos: unknown[][] = [];
    const stop = rp.discoverInBackground({
      info: (fields, message) => infos.push([fields, message]),
      error: () => {},
    });
    const end = performance.now() + 5_000;
    while (infos.length === 0 && performance.now() < end)
      await new Promise((r) => setTimeout(r, 10));
    stop();
    expect(infos).toEqual([[{ issuer: idp.issuer }, 'identity provider discovered']]);
    expect(rp.discoveryState()).toEqual({ discovered: true });
  });
});

describe('RelyingParty with its provider unreachable', () => {
  async function unreachable() {
    const issuer = `http://127.0.0.1:${await freePort()}`;
    return { issuer, rp: new RelyingParty({ ...idp.sso, issuer }) };
  }

  it('fails a sign-in with ProviderUnavailable naming the issuer and the cause', async () => {
    const { issuer, rp } = await unreachable();
    const failure = rp.authorizationUrl(RelyingParty.newSecrets(), { redirectUri: idp.callback });
    await expect(failure).rejects.toBeInstanceOf(ProviderUnavailable);
    await expect(failure).rejects.toMatchObject({
      name: 'ProviderUnavailable',
      message: expect.stringMatching(
        new RegExp(
          `^discovery at ${issuer.replace(/[.]/g, '\\.')} failed: fetch failed: .*ECONNREFUSED`,
        ),
      ),
    });
  });

  it('offers no sign-out at the provider rather than failing the sign-out', async () => {
    const { rp } = await unreachable();
    await expect(rp.endSessionUrl('id-token', 'http://127.0.0.1/sign-in')).resolves.toBeUndefined();
  });

  it('stopped while a try is under way, logs nothing more and tries no more', async () => {
    const { rp } = await unreachable();
    const errors: unknown[] = [];
    const stop = rp.discoverInBackground({
      info: () => {},
      error: (fields) => errors.push(fields),
    });
    stop();
    const failure = () =>
      ('failure' in rp.discoveryState() ? rp.discoveryState() : {}) as { failure?: string };
    const end = performance.now() + 5_000;
    while (!failure().failure && performance.now() < end)
      await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 50));
    expect(rp.discoveryState()).toMatchObject({ failure: expect.stringContaining('ECONNREFUSED') });
    expect(errors).toEqual([]);
  });
});
