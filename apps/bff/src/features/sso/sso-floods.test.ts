// What anyone can send the single sign-on endpoints, in bulk, against a real OpenID Provider
// over real HTTP (and a real PostgreSQL shared by two replicas): callbacks that belong to no sign-in
// write no audit record, and starts are limited per address, stored small and kept apart from
// passkey challenges, so a flood evicts no one's sign-in.
import { randomBytes } from 'node:crypto';
import { RETURN_TO_MAX } from '@card-console/shared/api/session';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryOneTimeStore } from '../../platform/security/one-time-store';
import { testDatabase } from '../../test/engines/postgres';
import { ManualClock, startTestApp, type TestApp } from '../../test/harness';
import {
  ssoPeople,
  startTestIdentityProvider,
  type TestIdentityProvider,
  walkToCallback,
} from '../../test/test-identity-provider';
import { sessionCookieFrom } from '../../test/test-session';

const publicOrigin = 'http://localhost:3000';
const STARTS_PER_MINUTE = 60; // the default of SSO_STARTS_PER_ADDRESS_PER_MINUTE
// The harness loosens the limit for tests that sign in often; these put it back.
const startLimit = { ssoStartsPerAddressPerMinute: STARTS_PER_MINUTE };
let idp: TestIdentityProvider;
beforeAll(async () => {
  idp = await startTestIdentityProvider(publicOrigin);
});
afterAll(async () => idp?.close());

const sessionCookie = (res: { headers: Record<string, unknown> }) =>
  sessionCookieFrom(res, 'cc_session');

/** `count` starts sent at once from `address`, spread over `apps` in turn. */
function startsFrom(apps: TestApp[], address: string, count: number, returnTo = '/cards') {
  return Promise.all(
    Array.from({ length: count }, (_, i) =>
      (apps[i % apps.length] as TestApp).request
        .get(`/api/sso/start?returnTo=${encodeURIComponent(returnTo)}`)
        .set('X-Forwarded-For', address),
    ),
  );
}

/** The admin's passkey sign-in, finished with the challenge the first step was given. */
function finishPasskeySignIn(app: TestApp, first: { secondFactor: { passkeyOptions: never } }) {
  const { email, password } = app.credentials.admin;
  const passkey = app.authenticator.get(first.secondFactor.passkeyOptions, app.config.publicOrigin);
  return app.request.post('/api/session').set(app.apiHeaders()).send({ email, password, passkey });
}

const toProvider = (res: { status: number; headers: Record<string, string> }) =>
  res.status === 302 && res.headers.location?.startsWith(idp.issuer);

describe('callbacks that match no sign-in in progress', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ sim: { transactions: 10 }, identityProvider: idp });
  });
  afterAll(async () => t?.close());

  it('300 at once, with or without a binding cookie: each a redirect, no audit record, a few log lines', async () => {
    const { items: before } = await t.audit.list({ limit: 1_000 });
    // A real browser's binding cookie, with states it never started.
    const { browser } = await walkToCallback(t.url, idp, ssoPeople.finance.email);
    const binding = browser
      .cookieHeader(t.url)
      .split('; ')
      .filter((pair) => pair.startsWith('cc_sso='))
      .join('; ');
    const logsBefore = t.logs.length;
    const answers = await Promise.all(
      Array.from({ length: 300 }, (_, i) => {
        const req = t.request
          .get(`/api/sso/callback?state=forged-${i}&code=c${i}`)
          .set('X-Request-Id', `flood-${i}`);
        return i % 2 ? req.set('Cookie', binding) : req;
      }),
    );
    for (const res of answers) {
      expect(res.status).toBe(302);
      expect(res.headers.location).toBe('/sign-in?sso=failed');
      expect(sessionCookie(res)).toBeUndefined();
    }
    const { items: after } = await t.audit.list({ limit: 1_000 });
    expect(after.length).toBe(before.length);
    const lines = t.logs
      .slice(logsBefore)
      .filter((line) => line.includes('matched no sign-in in progress'));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.length).toBeLessThanOrEqual(10);
  });

  it('a callback of a sign-in this browser started is still audited, whatever it says', async () => {
    const { stopped, browser } = await walkToCallback(t.url, idp, ssoPeople.finance.email);
    const denied = new URL(stopped.url);
    denied.searchParams.delete('code');
    denied.searchParams.set('error', 'access_denied');
    const res = await t.ssoCallback({ url: denied.toString() }, browser);
    expect(res.headers.location).toBe('/sign-in?sso=failed');
    const { items } = await t.audit.list({ limit: 1 });
    expect(items[0]).toMatchObject({
      action: 'session.signIn',
      outcome: 'failed',
      method: 'sso',
      detail: 'the provider answered access_denied',
    });
  });
});

describe('starts flooded from one address, one replica in memory', () => {
  let t: TestApp;
  beforeAll(async () => {
    const clock = new ManualClock();
    t = await startTestApp({
      clock,
      sim: { transactions: 10 },
      identityProvider: idp,
      env: { trustProxy: true, rateLimits: startLimit },
      // Small bounds, so the flood would reach them without the per-address limit.
      oneTimeStores: {
        challengeStore: new MemoryOneTimeStore(clock, 100),
        ssoPendingStore: new MemoryOneTimeStore(clock, 100),
      },
    });
  });
  afterAll(async () => t?.close());

  it('past the limit a start is sent back to sign-in; a person’s sign-in and passkey challenge survive', async () => {
    await t.enrolAdminPasskey();
    // A person starts a single sign-on from their address…
    const person = walkToCallback(t.url, idp, ssoPeople.finance.email, {
      path: '/api/sso/start?returnTo=%2Fcards',
    });
    const { stopped, browser } = await person;
    // …and the admin is given a passkey challenge.
    const { email, password } = t.credentials.admin;
    const first = await t.request
      .post('/api/session')
      .set(t.apiHeaders())
      .send({ email, password });
    expect(first.status).toBe(401);

    const flood = await startsFrom([t], '203.0.113.7', 300);
    expect(flood.filter(toProvider).length).toBe(STARTS_PER_MINUTE);
    const refused = flood.filter((res) => !toProvider(res));
    expect(refused.length).toBe(300 - STARTS_PER_MINUTE);
    for (const res of refused) {
      expect(res.status).toBe(302);
      expect(res.headers.location).toBe('/sign-in?sso=busy');
    }
    // Another address is not held back by the flood.
    expect(toProvider((await startsFrom([t], '198.51.100.9', 1))[0] as never)).toBe(true);

    const back = await t.ssoCallback(stopped, browser);
    expect(back.headers.location).toBe('/cards');
    expect(sessionCookie(back)).toBeDefined();
    expect((await finishPasskeySignIn(t, first.body)).status).toBe(200);
  });
});

describe('starts flooded from one address across two replicas sharing PostgreSQL', () => {
  let database: Awaited<ReturnType<typeof testDatabase>>;
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    database = await testDatabase();
    const clock = new ManualClock();
    const shared = { databaseUrl: database.url };
    const env = {
      sessionSecret: randomBytes(32).toString('hex'),
      trustProxy: true,
      rateLimits: startLimit,
    };
    const common = { clock, shared, env, identityProvider: idp };
    a = await startTestApp({ ...common, sim: { transactions: 10 } });
    b = await startTestApp({ ...common, upstreamOf: a });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await database?.stop();
  });

  it('the limit holds for both together; what is stored is small; a passkey challenge survives', async () => {
    await a.enrolAdminPasskey();
    const { email, password } = a.credentials.admin;
    const first = await b.request
      .post('/api/session')
      .set(b.apiHeaders())
      .send({ email, password });
    expect(first.status).toBe(401);

    const longReturnTo = `/transactions?q=${'x'.repeat(2_000)}`;
    const flood = await startsFrom([a, b], '203.0.113.8', 200, longReturnTo);
    expect(flood.filter(toProvider).length).toBe(STARTS_PER_MINUTE);

    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ value: string }>(
        "SELECT value FROM one_time_value WHERE kind = 'ssoPending' AND expires_at > now()",
      );
      expect(rows.length).toBe(STARTS_PER_MINUTE);
      for (const { value } of rows) {
        expect(value.length).toBeLessThan(1_024);
        // Too long to keep: the sign-in comes back to the start page instead.
        expect(JSON.parse(value).returnTo).toBe('/');
      }
      // Kept apart from passkey challenges: the flood wrote none of those.
      const challenges = await client.query(
        "SELECT 1 FROM one_time_value WHERE kind = 'challenges' AND value LIKE '%returnTo%'",
      );
      expect(challenges.rows).toEqual([]);
    } finally {
      await client.end();
    }
    // A returnTo within the bound is kept.
    const kept = `/transactions?q=${'y'.repeat(RETURN_TO_MAX - 20)}`;
    const { stopped, browser } = await walkToCallback(a.url, idp, ssoPeople.finance.email, {
      path: `/api/sso/start?returnTo=${encodeURIComponent(kept)}`,
    });
    // Started on A, back on B: the browser's binding cookie (a browser shares cookies across
    // ports of one host) and the pending sign-in in PostgreSQL.
    const back = new URL(stopped.url);
    const backOnB = await b.request
      .get(`${back.pathname}${back.search}`)
      .set('Cookie', browser.cookieHeader(a.url));
    expect(backOnB.headers.location).toBe(kept);

    expect((await finishPasskeySignIn(a, first.body)).status).toBe(200);
  });
});
