// Every way out of the single sign-on routes, over real HTTP against a real OpenID Provider:
// the binding cookie, the callback address, where each refusal sends the browser, and what it
// logs, audits and counts.
import type { AuditRecord } from '@card-console/shared/api/audit';
import { Registry } from 'prom-client';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ProviderPerson } from '../../demo/identity-provider';
import { createPrometheusMetrics } from '../../platform/metrics/prometheus-metrics';
import type { OneTimeStore } from '../../platform/security/one-time-store';
import { MemorySessionStore } from '../../platform/sessions/session-store';
import { freePort } from '../../test/engines/free-port';
import { ManualClock, startTestApp, type TestApp } from '../../test/harness';
import { SsoBrowser } from '../../test/sso-browser';
import {
  providerPassword,
  ssoPeople,
  startTestIdentityProvider,
  type TestIdentityProvider,
  walkToCallback,
} from '../../test/test-identity-provider';
import { errorSummary } from './sso-endpoints';

const publicOrigin = 'http://localhost:3000'; // the demo config's; the harness listens elsewhere
let idp: TestIdentityProvider;
beforeAll(async () => {
  idp = await startTestIdentityProvider(publicOrigin);
});
afterAll(async () => idp?.close());
afterEach(() => vi.useRealTimers());

const setCookies = (res: { headers: Record<string, unknown> }): string[] =>
  ([] as string[]).concat((res.headers['set-cookie'] as string[] | undefined) ?? []);
const sessionCookie = (res: { headers: Record<string, unknown> }) =>
  setCookies(res)
    .find((line) => /^(__Host-)?cc_session=[^;]/.test(line))
    ?.split(';')[0];

/** The log lines (JSON) whose message is `msg`. */
const logged = (t: TestApp, msg: string) =>
  t.logs.map((line) => JSON.parse(line) as Record<string, unknown>).filter((l) => l.msg === msg);

async function lastAudit(t: TestApp, action: AuditRecord['action']) {
  const { items } = await t.audit.list({ limit: 50, filter: { action } });
  return items[0];
}

/** Where a sign-in by someone the provider knows only for this test sends the browser. */
async function signInAsNewcomer(t: TestApp, person: ProviderPerson): Promise<string | undefined> {
  idp.people.set(person.email, person);
  try {
    const walk = await walkToCallback(t.url, idp, person.email);
    return (await t.ssoCallback(walk.stopped, walk.browser)).headers.location;
  } finally {
    idp.people.delete(person.email);
  }
}

/** An admin signed in through the provider (no step-up yet): the session cookie. */
async function ssoAdmin(t: TestApp): Promise<string> {
  const first = await walkToCallback(t.url, idp, ssoPeople.admin.email);
  const cookie = sessionCookie(await t.ssoCallback(first.stopped, first.browser));
  if (!cookie) throw new Error('no session');
  return cookie;
}

describe('errorSummary', () => {
  it('is the code, the message and a different cause’s message, bounded', () => {
    const error = Object.assign(new Error('unexpected JWT claim value encountered'), {
      code: 'OAUTH_JWT_CLAIM_COMPARISON_FAILED',
      cause: new Error('unexpected JWT "nonce" claim value'),
    });
    expect(errorSummary(error)).toBe(
      'OAUTH_JWT_CLAIM_COMPARISON_FAILED: unexpected JWT claim value encountered (unexpected JWT "nonce" claim value)',
    );
    expect(errorSummary(new Error('plain'))).toBe('plain');
    expect(errorSummary(Object.assign(new Error('same'), { cause: new Error('same') }))).toBe(
      'same',
    );
    expect(errorSummary(Object.assign(new Error('m'), { code: 7, cause: { message: 8 } }))).toBe(
      'm',
    );
    expect(errorSummary('a thrown string')).toBe('a thrown string');
    expect(errorSummary(new Error('x'.repeat(500)))).toHaveLength(240);
  });
});

describe('without single sign-on configured', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ sim: { transactions: 5 } });
  });
  afterAll(async () => t?.close());

  it('its start and callback are not there: 404 sso_not_configured', async () => {
    for (const path of ['/api/sso/start', '/api/sso/callback?state=s&code=c']) {
      const res = await t.request.get(path);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({
        code: 'sso_not_configured',
        detail: 'Single sign-on is not set up here.',
      });
    }
  });
});

describe('the binding cookie and the callback address', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      sim: { transactions: 5 },
      identityProvider: idp,
      env: { allowedOrigins: [publicOrigin, 'http://127.0.0.1:3000'] },
    });
  });
  afterAll(async () => t?.close());

  it('binds the browser with an HttpOnly, SameSite=Lax cookie for the 10 minutes a sign-in may take', async () => {
    const start = await t.request.get('/api/sso/start');
    expect(start.status).toBe(302);
    expect(setCookies(start)).toEqual([
      expect.stringMatching(
        /^cc_sso=[A-Za-z0-9_-]{43}; Max-Age=600; Path=\/; Expires=[^;]+; HttpOnly; SameSite=Lax$/,
      ),
    ]);
  });

  it('a second start in the same browser keeps its binding, and the first sign-in still finishes', async () => {
    const first = await t.request.get('/api/sso/start?returnTo=%2Fcards');
    const binding = setCookies(first)[0]?.split(';')[0] ?? '';
    const second = await t.request.get('/api/sso/start').set('Cookie', binding);
    expect(second.status).toBe(302);
    expect(second.headers['set-cookie']).toBeUndefined();
    // The first tab's sign-in at the provider, back with the one binding the browser holds.
    const browser = new SsoBrowser();
    const login = await browser.follow(first.headers.location as string);
    const stopped = await browser.signInAtProviderUntil(
      login,
      ssoPeople.finance.email,
      providerPassword,
      idp.callback,
    );
    const back = new URL(stopped.url);
    const res = await t.request.get(`${back.pathname}${back.search}`).set('Cookie', binding);
    expect(res.headers.location).toBe('/cards');
    expect(sessionCookie(res)).toBeDefined();
  });

  it('comes back to the origin the person opened when it is an allowed one, else to PUBLIC_ORIGIN', async () => {
    const redirectUri = async (host: string) =>
      new URL(
        (await t.request.get('/api/sso/start').set('Host', host)).headers.location as string,
      ).searchParams.get('redirect_uri');
    expect(await redirectUri('127.0.0.1:3000')).toBe('http://127.0.0.1:3000/api/sso/callback');
    expect(await redirectUri('localhost:3000')).toBe(`${publicOrigin}/api/sso/callback`);
    expect(await redirectUri('evil.example')).toBe(`${publicOrigin}/api/sso/callback`);
  });

  it('a callback that matches no sign-in is logged with why: malformed, or none in progress', async () => {
    await t.request.get('/api/sso/callback?state=abc&error=a!b');
    await t.request.get('/api/sso/callback?state=abc&code=c');
    const lines = logged(t, 'single sign-on callback matched no sign-in in progress');
    expect(lines.slice(-2)).toEqual([
      expect.objectContaining({ reason: 'malformed', requestId: expect.any(String) }),
      expect.objectContaining({ reason: 'no sign-in in progress', requestId: expect.any(String) }),
    ]);
  });
});

describe('with the secure cookie (HTTPS deployments)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      sim: { transactions: 5 },
      identityProvider: idp,
      env: { cookie: { name: '__Host-cc_session', secure: true } },
    });
  });
  afterAll(async () => t?.close());

  it('the binding is a __Host- cookie marked Secure, and a sign-in works with it', async () => {
    const { stopped, browser } = await walkToCallback(t.url, idp, ssoPeople.finance.email);
    expect(browser.cookieHeader(t.url)).toMatch(/^__Host-cc_sso=[A-Za-z0-9_-]{43}$/);
    const start = await t.request.get('/api/sso/start');
    expect(setCookies(start)[0]).toMatch(/^__Host-cc_sso=[^;]+;.*; Secure; SameSite=Lax$/);
    const back = await t.ssoCallback(stopped, browser);
    expect(back.headers.location).toBe('/cards');
    expect(sessionCookie(back)).toMatch(/^__Host-cc_session=/);
  });
});

describe('refusals, counted by reason', () => {
  const registry = new Registry();
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      sim: { transactions: 5 },
      identityProvider: idp,
      metrics: createPrometheusMetrics(registry),
    });
  });
  afterAll(async () => t?.close());

  const count = async (reason: string) => {
    const metric = await registry.getSingleMetric('bff_sso_callback_failures_total')?.get();
    return metric?.values.find((v) => v.labels.reason === reason)?.value ?? 0;
  };

  it('a step-up asks the provider for the person signed in, signed in again', async () => {
    const cookie = await ssoAdmin(t);
    const start = await t.request
      .get('/api/sso/step-up?returnTo=%2Fcards')
      .set(t.apiHeaders({ Cookie: cookie }));
    const asked = new URL(start.headers.location as string).searchParams;
    expect(asked.get('login_hint')).toBe(ssoPeople.admin.email);
    expect(asked.get('max_age')).toBe('0');
    expect(asked.get('prompt')).toBe('login');
  });

  it('a step-up asked of a password session (a stale link) goes back with the step-up failed', async () => {
    const admin = await t.signIn('admin', { via: 'password' });
    const res = await t.request
      .get('/api/sso/step-up?returnTo=%2Fcards')
      .set(t.apiHeaders({ Cookie: admin.cookie }));
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('/cards?stepUp=failed');
  });

  it('a step-up whose session ended meanwhile: back with the step-up failed, audited without a name', async () => {
    const cookie = await ssoAdmin(t);
    const before = await count('step_up_refused');
    const walk = await walkToCallback(t.url, idp, ssoPeople.admin.email, {
      path: '/api/sso/step-up?returnTo=%2Fcards%3Fstatus%3Dactive',
      cookie,
    });
    await t.request.delete('/api/session').set(t.apiHeaders({ Cookie: cookie }));
    const back = await t.ssoCallback(walk.stopped, walk.browser);
    expect(back.headers.location).toBe('/cards?status=active&stepUp=failed');
    expect(await lastAudit(t, 'session.stepUp')).toMatchObject({
      actor: '(unknown account)',
      outcome: 'failed',
      method: 'provider',
      detail: 'the session that asked has ended',
    });
    expect(await count('step_up_refused')).toBe(before + 1);
  });

  it('a step-up whose session ended is not given to another session the browser sends', async () => {
    const asking = await ssoAdmin(t);
    const walk = await walkToCallback(t.url, idp, ssoPeople.admin.email, {
      path: '/api/sso/step-up?returnTo=%2Fcards',
      cookie: asking,
    });
    await t.request.delete('/api/session').set(t.apiHeaders({ Cookie: asking }));
    // The same person's other session, sent along (a same-site navigation would carry it).
    const other = await ssoAdmin(t);
    const binding = walk.browser
      .cookieHeader(t.url)
      .split('; ')
      .filter((pair) => pair.startsWith('cc_sso='));
    const back = new URL(walk.stopped.url);
    const res = await t.request
      .get(`${back.pathname}${back.search}`)
      .set('Cookie', [...binding, other].join('; '));
    expect(res.headers.location).toBe('/cards?stepUp=failed');
    const me = await t.request.get('/api/session').set(t.apiHeaders({ Cookie: other }));
    expect(me.status).toBe(200);
    expect(me.body.stepUpUntil).toBeUndefined();
  });

  it('a step-up where another person signs in at the provider counts as a refused step-up', async () => {
    const cookie = await ssoAdmin(t);
    const before = await count('step_up_refused');
    const walk = await walkToCallback(t.url, idp, ssoPeople.finance.email, {
      path: '/api/sso/step-up?returnTo=%2Fcards',
      cookie,
    });
    expect((await t.ssoCallback(walk.stopped, walk.browser)).headers.location).toBe(
      '/cards?stepUp=failed',
    );
    expect(await count('step_up_refused')).toBe(before + 1);
  });

  it('a step-up finished 45 s after the provider’s sign-in is refused (auth_time); a sign-in is not', async () => {
    const cookie = await ssoAdmin(t);
    const stepUp = await walkToCallback(t.url, idp, ssoPeople.admin.email, {
      path: '/api/sso/step-up?returnTo=%2Fcards',
      cookie,
    });
    const signIn = await walkToCallback(t.url, idp, ssoPeople.finance.email);
    // Past openid-client's 30 s tolerance, within the code's 60 s life.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 45_000 });
    const refused = await t.ssoCallback(stepUp.stopped, stepUp.browser);
    expect(refused.headers.location).toBe('/cards?stepUp=failed');
    expect(await lastAudit(t, 'session.stepUp')).toMatchObject({
      outcome: 'failed',
      detail: expect.stringContaining(
        'too much time has elapsed since the last End-User authentication',
      ),
    });
    const signedIn = await t.ssoCallback(signIn.stopped, signIn.browser);
    expect(signedIn.headers.location).toBe('/cards');
  });

  it('a token refused is logged with the request id', async () => {
    const tampered = await walkToCallback(t.url, idp, ssoPeople.finance.email, {
      tamper: (u) => u.searchParams.set('nonce', 'a-nonce-the-console-never-made'),
    });
    const back = await t.ssoCallback(tampered.stopped, tampered.browser);
    expect(back.headers.location).toBe('/sign-in?sso=failed');
    expect(logged(t, 'single sign-on callback refused').at(-1)).toMatchObject({
      requestId: back.headers['x-request-id'],
      err: expect.objectContaining({ message: expect.any(String) }),
    });
  });

  it('a users-file email the provider vouches for, not linked: refused as an identity, counted so', async () => {
    const before = await count('identity_refused');
    const person = {
      sub: 'sub-takes-a-file-name',
      email: 'admin@demo.test',
      name: 'Not Them',
      groups: ['cc-admins'],
    };
    expect(await signInAsNewcomer(t, person)).toBe('/sign-in?sso=failed');
    expect(await count('identity_refused')).toBe(before + 1);
  });

  it('what the trail keeps of a refusal is at most 300 characters', async () => {
    const person = {
      sub: `sub-${'s'.repeat(400)}`,
      email: 'long-subject@example.test',
      name: 'Long Subject',
      groups: ['cc-finance'],
      claims: { email_verified: false },
    };
    expect(await signInAsNewcomer(t, person)).toBe('/sign-in?sso=failed');
    const record = await lastAudit(t, 'session.signIn');
    expect(record?.detail).toMatch(/^the ID token has no usable verified email/);
    expect(record?.detail).toHaveLength(300);
  });
});

describe('when the pending sign-ins cannot be read', () => {
  const registry = new Registry();
  let t: TestApp;
  beforeAll(async () => {
    const broken: OneTimeStore = {
      put: async () => {},
      take: () => Promise.reject(new Error('store down')),
    };
    t = await startTestApp({
      sim: { transactions: 5 },
      identityProvider: idp,
      metrics: createPrometheusMetrics(registry),
      oneTimeStores: { ssoPendingStore: broken },
    });
  });
  afterAll(async () => t?.close());

  it('the callback sends the browser back to sign-in, logged and counted as an error', async () => {
    const start = await t.request.get('/api/sso/start');
    const binding = setCookies(start)[0]?.split(';')[0] ?? '';
    const back = await t.request.get('/api/sso/callback?state=s&code=c').set('Cookie', binding);
    expect(back.status).toBe(302);
    expect(back.headers.location).toBe('/sign-in?sso=failed');
    expect(logged(t, 'single sign-on callback failed').at(-1)).toMatchObject({
      requestId: back.headers['x-request-id'],
      err: expect.objectContaining({ message: 'store down' }),
    });
    const metric = await registry.getSingleMetric('bff_sso_callback_failures_total')?.get();
    expect(metric?.values.find((v) => v.labels.reason === 'error')?.value).toBe(1);
  });
});

describe('a step-up the provider or the store cannot take', () => {
  // Replicas of one deployment sharing sessions: one signs the admin in, the others have a
  // provider that is down, or a pending store that refuses writes.
  const sessionSecret = 'a-session-secret-shared-by-these-replicas-0123456789';
  const clock = new ManualClock();
  const sessions = new MemorySessionStore(clock);
  let good: TestApp;
  let providerDown: TestApp;
  let storeDown: TestApp;
  beforeAll(async () => {
    const down = { ...idp, sso: { ...idp.sso, issuer: `http://127.0.0.1:${await freePort()}` } };
    const refusing: OneTimeStore = {
      put: () => Promise.reject(new Error('store down')),
      take: async () => undefined,
    };
    const common = {
      sim: { transactions: 5 },
      clock,
      env: { sessionSecret },
      sessionStore: sessions,
    };
    good = await startTestApp({ ...common, identityProvider: idp });
    providerDown = await startTestApp({ ...common, upstreamOf: good, identityProvider: down });
    storeDown = await startTestApp({
      ...common,
      upstreamOf: good,
      identityProvider: idp,
      oneTimeStores: { ssoPendingStore: refusing },
    });
  });
  afterAll(async () => {
    await storeDown?.close();
    await providerDown?.close();
    await good?.close();
  });

  it('with the provider down, a sign-in goes back to sign-in saying so, logged', async () => {
    const res = await providerDown.request.get('/api/sso/start');
    expect(res.headers.location).toBe('/sign-in?sso=unavailable');
    expect(logged(providerDown, 'single sign-on provider unavailable').at(-1)).toMatchObject({
      requestId: res.headers['x-request-id'],
      err: expect.objectContaining({ message: expect.stringContaining('discovery at') }),
    });
  });

  it('with the provider down, a step-up goes back to its page with the step-up failed', async () => {
    const cookie = await ssoAdmin(good);
    const res = await providerDown.request
      .get('/api/sso/step-up?returnTo=%2Fcards%3Fstatus%3Dactive')
      .set(providerDown.apiHeaders({ Cookie: cookie }));
    expect(res.headers.location).toBe('/cards?status=active&stepUp=failed');
  });

  it('with the pending store refusing, a step-up goes back to its page with the step-up failed, logged', async () => {
    const cookie = await ssoAdmin(good);
    const res = await storeDown.request
      .get('/api/sso/step-up?returnTo=%2Fcards')
      .set(storeDown.apiHeaders({ Cookie: cookie }));
    expect(res.headers.location).toBe('/cards?stepUp=failed');
    expect(logged(storeDown, 'pending single sign-on not stored').at(-1)).toMatchObject({
      requestId: res.headers['x-request-id'],
      err: expect.objectContaining({ message: 'store down' }),
    });
  });
});
