// The in-process OpenID Provider against openid-client v6 over real loopback HTTP: the same
// library and checks the relying party uses (PKCE, state, nonce, signature, expiry, auth_time).
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it, type MockInstance, vi } from 'vitest';
import { demoPassword } from '../platform/users/demo-accounts';
import { SsoBrowser } from '../test/sso-browser';
import { startDemoIdentityProvider } from './demo-identity-provider';
import {
  type ProviderPerson,
  type RunningIdentityProvider,
  startIdentityProvider,
} from './identity-provider';

const callback = 'http://127.0.0.1:9/sso/callback';
const signedOut = 'http://127.0.0.1:9/signed-out';
const password = 'correct horse battery staple';
const people = new Map<string, ProviderPerson>();
const consoleSpies: MockInstance[] = [];

let idp: RunningIdentityProvider;
let rp: oidc.Configuration;

function discover(issuer: string, clientId: string, auth: oidc.ClientAuth) {
  // Loopback http: openid-client refuses non-https unless told, per call site.
  return oidc.discovery(new URL(issuer), clientId, undefined, auth, {
    execute: [oidc.allowInsecureRequests],
  });
}

function client(clientId: string, auth = oidc.ClientSecretBasic(`${clientId}-secret`)) {
  return discover(idp.issuer, clientId, auth);
}

beforeAll(async () => {
  for (const level of ['log', 'info', 'warn', 'error'] as const)
    consoleSpies.push(vi.spyOn(console, level));
  people.set('ada@example.test', {
    sub: 'sub-ada',
    email: 'ada@example.test',
    name: 'Ada',
    groups: ['finance'],
  });
  const registration = (clientId: string) => ({
    clientId,
    clientSecret: `${clientId}-secret`,
    redirectUris: [callback],
    postLogoutRedirectUris: [signedOut],
  });
  idp = await startIdentityProvider({
    clients: [
      registration('rp'),
      registration('rp-expired'),
      { ...registration('rp-post'), tokenEndpointAuthMethod: 'client_secret_post' },
    ],
    findPerson: (email) => people.get(email),
    checkPassword: (email, given) => people.has(email) && given === password,
    idTokenTtlSeconds: (clientId) => (clientId === 'rp-expired' ? -120 : 600),
  });
  rp = await client('rp');
});

afterAll(async () => {
  await idp?.close();
  for (const spy of consoleSpies) spy.mockRestore();
});

async function authorization(config: oidc.Configuration, extra: Record<string, string> = {}) {
  const verifier = oidc.randomPKCECodeVerifier();
  const checks = {
    pkceCodeVerifier: verifier,
    expectedState: oidc.randomState(),
    expectedNonce: oidc.randomNonce(),
  };
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: callback,
    scope: 'openid email profile groups',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state: checks.expectedState,
    nonce: checks.expectedNonce,
    ...extra,
  });
  return { url, checks };
}

async function signIn(
  browser: SsoBrowser,
  config = rp,
  extra: Record<string, string> = {},
  person = { email: 'ada@example.test', password },
) {
  const { url, checks } = await authorization(config, extra);
  const form = await browser.follow(url);
  expect(form.status).toBe(200);
  const back = await browser.signInAtProviderUntil(form, person.email, person.password, callback);
  return { callbackUrl: new URL(back.url), checks };
}

describe('the in-process identity provider', () => {
  it('signs someone in with PKCE, state and nonce, and puts sub, email, name, groups and auth_time in the ID token', async () => {
    const before = Math.floor(Date.now() / 1000);
    const { callbackUrl, checks } = await signIn(new SsoBrowser());
    const tokens = await oidc.authorizationCodeGrant(rp, callbackUrl, checks);

    expect(tokens.claims()).toMatchObject({
      iss: idp.issuer,
      aud: 'rp',
      sub: 'sub-ada',
      email: 'ada@example.test',
      email_verified: true,
      name: 'Ada',
      groups: ['finance'],
    });
    expect(tokens.claims()?.auth_time).toBeGreaterThanOrEqual(before);
    expect(idp.issuer).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('shows a plain labelled form without script, and re-shows it with 401 and the message after a wrong password', async () => {
    const browser = new SsoBrowser();
    const form = await browser.follow((await authorization(rp)).url);
    expect(form.body).toMatch(/<label for="email">Email<\/label>/);
    expect(form.body).toMatch(/<label for="password">Password<\/label>/);
    expect(form.body).not.toMatch(/<script/i);
    expect(form.headers.get('content-security-policy')).toMatch(/default-src 'none'/);

    const again = await browser.signInAtProvider(form, 'Ada@Example.test', 'wrong');
    expect(again.status).toBe(401);
    expect(again.body).toContain('Wrong email or password.');
    expect(again.visited).toEqual([
      new URL(/action="([^"]+)"/.exec(form.body)?.[1] ?? '', form.url).href,
    ]);

    const hostile = await browser.signInAtProvider(again, '"><b>x@example.test', 'wrong');
    expect(hostile.status).toBe(401);
    expect(hostile.body).not.toContain('<b>');
    expect(hostile.body).toContain('value="&quot;&gt;&lt;b&gt;x@example.test"');

    const back = await browser.signInAtProviderUntil(
      hostile,
      'ada@example.test',
      password,
      callback,
    );
    expect(new URL(back.url).searchParams.has('code')).toBe(true);
  });

  it('with a provider session goes straight back, but max_age=0 asks again and gives a newer auth_time', async () => {
    const browser = new SsoBrowser();
    const first = await signIn(browser);
    const firstClaims = (
      await oidc.authorizationCodeGrant(rp, first.callbackUrl, first.checks)
    ).claims();

    const silent = await authorization(rp);
    const straightBack = await browser.followUntil(silent.url, callback);
    expect(new URL(straightBack.url).searchParams.has('code')).toBe(true);

    await new Promise((resolve) => setTimeout(resolve, 1100)); // auth_time counts whole seconds
    const stepUp = await signIn(browser, rp, { max_age: '0' });
    const stepUpClaims = (
      await oidc.authorizationCodeGrant(rp, stepUp.callbackUrl, { ...stepUp.checks, maxAge: 0 })
    ).claims();
    expect(stepUpClaims?.auth_time).toBeGreaterThan(
      firstClaims?.auth_time ?? Number.POSITIVE_INFINITY,
    );

    const forced = await browser.follow((await authorization(rp, { prompt: 'login' })).url);
    expect(forced.body).toMatch(/type="password"/);
  });

  it('asks findPerson at every sign-in, so a change of groups shows in the next ID token', async () => {
    const browser = new SsoBrowser();
    const first = await signIn(browser);
    expect(
      (await oidc.authorizationCodeGrant(rp, first.callbackUrl, first.checks)).claims()?.groups,
    ).toEqual(['finance']);

    people.set('ada@example.test', {
      sub: 'sub-ada',
      email: 'ada@example.test',
      name: 'Ada',
      groups: ['admins'],
    });
    try {
      const again = await authorization(rp);
      const back = await browser.followUntil(again.url, callback);
      const claims = (
        await oidc.authorizationCodeGrant(rp, new URL(back.url), again.checks)
      ).claims();
      expect(claims?.groups).toEqual(['admins']);
    } finally {
      people.set('ada@example.test', {
        sub: 'sub-ada',
        email: 'ada@example.test',
        name: 'Ada',
        groups: ['finance'],
      });
    }
  });

  it('signs an already-expired ID token when the TTL is negative, and openid-client refuses it', async () => {
    const expired = await client('rp-expired');
    const { callbackUrl, checks } = await signIn(new SsoBrowser(), expired);
    const refusal = await oidc
      .authorizationCodeGrant(expired, callbackUrl, checks)
      .catch((error) => error);
    // openid-client's own words sit one level down; the claim that failed, one further.
    expect(refusal).toMatchObject({
      code: 'OAUTH_JWT_TIMESTAMP_CHECK_FAILED',
      cause: { message: expect.stringMatching(/expiration is past/), cause: { claim: 'exp' } },
    });
  });

  it('refuses the same code a second time with invalid_grant', async () => {
    const { callbackUrl, checks } = await signIn(new SsoBrowser());
    await oidc.authorizationCodeGrant(rp, callbackUrl, checks);
    await expect(oidc.authorizationCodeGrant(rp, callbackUrl, checks)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
  });

  it('takes the secret in the body from a client registered for client_secret_post', async () => {
    const post = await client('rp-post', oidc.ClientSecretPost('rp-post-secret'));
    const { callbackUrl, checks } = await signIn(new SsoBrowser(), post);
    expect((await oidc.authorizationCodeGrant(post, callbackUrl, checks)).claims()?.sub).toBe(
      'sub-ada',
    );
  });

  it('signs out at the RP’s request after a confirm page, back to the post_logout_redirect_uri', async () => {
    const browser = new SsoBrowser();
    const { callbackUrl, checks } = await signIn(browser);
    const tokens = await oidc.authorizationCodeGrant(rp, callbackUrl, checks);

    const confirm = await browser.follow(
      oidc.buildEndSessionUrl(rp, {
        id_token_hint: tokens.id_token ?? '',
        post_logout_redirect_uri: signedOut,
        state: 'bye',
      }),
    );
    expect(confirm.status).toBe(200);
    expect(confirm.body).not.toMatch(/<script/i);
    const back = await browser.submitFormUntil(confirm, signedOut, { button: 'Sign out' });
    expect(new URL(back.url).searchParams.get('state')).toBe('bye');

    const afterwards = await browser.follow((await authorization(rp)).url);
    expect(afterwards.body).toMatch(/type="password"/);
  });

  it('printed no oidc-provider notice or warning through all of the above', () => {
    const printed = consoleSpies.flatMap((spy) => spy.mock.calls.map((call) => String(call[0])));
    expect(printed.filter((line) => line.includes('oidc-provider'))).toEqual([]);
  });
});

describe('the demo identity provider', () => {
  it('signs the demo people in with the demo password: finance and admins by group, the visitor only in sales', async () => {
    const demo = await startDemoIdentityProvider({
      redirectUris: [callback],
      postLogoutRedirectUris: [signedOut],
    });
    try {
      const config = await discover(
        demo.issuer,
        demo.clientId,
        oidc.ClientSecretBasic(demo.clientSecret),
      );
      const browser = new SsoBrowser();
      const form = await browser.follow((await authorization(config)).url);
      expect(form.body).toContain('Card Console demo sign-in (identity provider)');
      expect(form.body).toContain('These are demo people');

      const groupsOf = async (email: string) => {
        const { callbackUrl, checks } = await signIn(
          new SsoBrowser(),
          config,
          {},
          { email, password: demoPassword },
        );
        return (await oidc.authorizationCodeGrant(config, callbackUrl, checks)).claims()?.[
          demo.roleClaim
        ];
      };
      expect(await groupsOf('finance@demo.test')).toEqual(['card-console-finance']);
      expect(await groupsOf('admin@demo.test')).toEqual(['card-console-admins']);
      expect(await groupsOf('visitor@demo.test')).toEqual(['sales']);
      expect(demo.roleMap).toEqual({
        'card-console-finance': 'finance',
        'card-console-admins': 'admin',
      });

      const wrong = await browser.signInAtProvider(
        form,
        'admin@demo.test',
        'not-the-demo-password',
      );
      expect(wrong.status).toBe(401);
    } finally {
      await demo.close();
    }
  });
});
