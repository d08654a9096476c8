// Two BFF replicas sharing one PostgreSQL and one card service, over real HTTP: whatever one
// replica learns about a person (session, failures, used codes, running edits and exports),
// the other acts on. Each app is a replica with a pool of its own, as with DATABASE_URL.
import { randomBytes } from 'node:crypto';
import { apiErrorBodySchema } from '@card-console/shared/api/error';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardValuesSeen } from '../../test/card-values';
import { rawDownload } from '../../test/csv';
import { type PostgresEngine, startPostgres } from '../../test/engines/postgres';
import { ManualClock, startTestApp, type TestApp, type TestSession } from '../../test/harness';
import { wrongTotpCodes } from '../../test/totp-source';
import { FRESH_MS, STALE_MS } from '../sessions/outage-read-cache';
import { ACTIVITY_GRANULARITY_MS } from '../sessions/session-service';

let engine: PostgresEngine;
let clock: ManualClock;
let a: TestApp;
let b: TestApp;

beforeAll(async () => {
  // Its own server, not TEST_DATABASE_URL: the last test stops and restarts it.
  engine = await startPostgres();
  clock = new ManualClock();
  const shared = { databaseUrl: await engine.createDatabase('card_console') };
  const env = {
    sessionSecret: randomBytes(32).toString('hex'),
    trustProxy: true,
    exportCaps: { perPerson: 1, total: 8 },
  };
  a = await startTestApp({ clock, shared, env, sim: { transactions: 3_000, rateLimit: false } });
  b = await startTestApp({ clock, shared, env, upstreamOf: a });
});
afterAll(async () => {
  await b?.close();
  await a?.close();
  await engine?.destroy();
});

const cardId = () => a.sim.data.cards()[3]?.id ?? '';
const codeOf = (res: { body: unknown }) => apiErrorBodySchema.parse(res.body).code;

/** Signs in through `app` with a code from A's authenticator (one source for both replicas). */
async function signInAdmin(app: TestApp): Promise<TestSession> {
  const { email, password } = app.credentials.admin;
  const res = await app.request
    .post('/api/session')
    .set(app.apiHeaders())
    .send({ email, password, totp: a.adminTotp() });
  expect(res.status).toBe(200);
  const { TestSession } = await import('../../test/test-session');
  return TestSession.fromResponse(res, 'admin', app.config.cookie.name, app.apiHeaders);
}

describe('two replicas sharing one PostgreSQL', () => {
  it('signed in on A, the person reads on B; signed out on A, the cookie is refused there at once and on B within 5 s', async () => {
    const finance = await a.signIn('finance');
    expect((await b.request.get('/api/cards').set(finance.headers())).status).toBe(200);
    const me = await b.request.get('/api/session').set(finance.headers());
    expect(me.body.email).toBe(a.credentials.finance.email);

    expect((await a.request.delete('/api/session').set(finance.headers())).status).toBeLessThan(
      300,
    );
    expect((await a.request.get('/api/cards').set(finance.headers())).status).toBe(401);
    // B read the session a moment ago and may use that read for less than FRESH_MS.
    clock.advance(FRESH_MS);
    expect((await b.request.get('/api/cards').set(finance.headers())).status).toBe(401);
    expect((await a.request.get('/api/cards').set(finance.headers())).status).toBe(401);
  });

  it('five failed sign-ins split across A and B lock the account at that address on both, even with the right password', async () => {
    const { email, password } = a.credentials.finance;
    const from = { 'X-Forwarded-For': '198.51.100.23' };
    for (const [i, app] of [a, b, a, b, a].entries()) {
      const res = await app.request
        .post('/api/session')
        .set(app.apiHeaders(from))
        .send({ email, password: `wrong-${i}` });
      expect(res.status).toBe(401);
    }
    for (const app of [b, a]) {
      const locked = await app.request
        .post('/api/session')
        .set(app.apiHeaders(from))
        .send({ email, password });
      expect(locked.status).toBe(429);
      expect(codeOf(locked)).toBe('rate_limited');
    }
  });

  it('wrong step-up codes sent to A and B together end the session on both at the 5th', async () => {
    const admin = await signInAdmin(a);
    const codes = wrongTotpCodes(a.credentials.admin.totpSecret ?? '', a.clock.now(), 5);
    const answers: string[] = [];
    for (const [i, code] of codes.entries()) {
      const app = i % 2 ? b : a;
      const res = await app.request
        .post(`/api/cards/${cardId()}/reveal`)
        .set(admin.headers())
        .send({ reason: 'card holder on the phone', totp: code });
      expect(res.status).toBe(401);
      answers.push(codeOf(res));
    }
    expect(answers).toEqual([
      'invalid_totp',
      'invalid_totp',
      'invalid_totp',
      'invalid_totp',
      'session_ended',
    ]);
    // Ended on A (the 5th); B, which read it for the 4th, refuses it within FRESH_MS.
    expect((await a.request.get('/api/session').set(admin.headers())).status).toBe(401);
    clock.advance(FRESH_MS);
    for (const app of [a, b]) {
      expect((await app.request.get('/api/session').set(admin.headers())).status).toBe(401);
    }
  });

  it('a TOTP code used to sign in on A is refused on B; the next code works there', async () => {
    const { email, password } = a.credentials.admin;
    const code = a.adminTotp();
    const onA = await a.request.post('/api/session').set(a.apiHeaders()).send({
      email,
      password,
      totp: code,
    });
    expect(onA.status).toBe(200);
    const replayed = await b.request.post('/api/session').set(b.apiHeaders()).send({
      email,
      password,
      totp: code,
    });
    expect(replayed.status).toBe(401);
    await signInAdmin(b);
  });

  it('ten edits of one card sent at once through A and B from the same view: one is saved, nine get 409 card_changed', async () => {
    const admin = await signInAdmin(a);
    const id = cardId();
    const start = cardValuesSeen(a.sim, id);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 ? b : a).request
          .patch(`/api/cards/${id}`)
          .set(admin.headers())
          .send({ name: `Travel ${i}`, expected: { name: start.name } }),
      ),
    );
    const saved = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 409);
    expect(saved).toHaveLength(1);
    expect(refused).toHaveLength(9);
    for (const r of refused) expect(codeOf(r)).toBe('card_changed');
    expect(cardValuesSeen(a.sim, id).name).toBe(saved[0]?.body.name);
  });

  it("one person's export running on A fills their cap on B; once it ends, B exports", async () => {
    const finance = await a.signIn('finance');
    const subAccountId = a.sim.data.subAccounts()[0]?.id ?? '';
    const url = (app: TestApp) =>
      `${app.url}/api/transactions/export.csv?${new URLSearchParams({ subAccountId })}`;
    a.sim.stats.reset();
    a.sim.faults.set({ latencyMs: 40 });
    try {
      const running = rawDownload(url(a), finance.headers());
      // The slot is taken before the first page is asked for.
      while (a.sim.stats.count('GET /transaction') === 0) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      const refused = await b.request
        .get('/api/transactions/export.csv')
        .query({ subAccountId })
        .set(finance.headers());
      expect(refused.status).toBe(429);
      expect(codeOf(refused)).toBe('export_busy');
      const done = await running;
      expect(done.status).toBe(200);
      expect(done.complete).toBe(true);
    } finally {
      a.sim.faults.clear();
    }
    // A's slot is given back as its export ends, by a statement that may still be on its way
    // when the last byte has reached the client (under load, CI saw a 429 here): B exports once
    // it has landed, within a second.
    let after = await rawDownload(url(b), finance.headers());
    for (const started = Date.now(); after.status === 429 && Date.now() - started < 1_000; ) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      after = await rawDownload(url(b), finance.headers());
    }
    expect(after.status).toBe(200);
    expect(after.complete).toBe(true);
  });

  it('with PostgreSQL stopped, a session read in the last 30 s still reads cards on both replicas while sign-in, sign-out and a card edit answer 503 store_unavailable and change nothing; past 30 s it is a 503 too; once PostgreSQL is back everything works without a restart', async () => {
    const finance = await a.signIn('finance');
    const admin = await signInAdmin(b);
    const id = cardId();
    const before = cardValuesSeen(a.sim, id);
    // Each replica reads both sessions from PostgreSQL now: the last good reads.
    clock.advance(FRESH_MS);
    const lastRead = clock.now();
    for (const app of [a, b]) {
      for (const who of [finance, admin]) {
        expect((await app.request.get('/api/cards').set(who.headers())).status).toBe(200);
      }
    }
    await engine.stop();
    try {
      // Past the activity granularity: each read also tries to record activity, which fails.
      clock.advance(ACTIVITY_GRANULARITY_MS);
      for (const app of [a, b]) {
        // A hang guard, not a timing check: the pool fails at once (connection refused).
        const read = await app.request
          .get('/api/cards')
          .set(finance.headers())
          .timeout({ response: 10_000 });
        expect(read.status).toBe(200);
        expect(read.body.items.length).toBeGreaterThan(0);
        expect((await app.request.get('/api/session').set(finance.headers())).body.email).toBe(
          a.credentials.finance.email,
        );

        const signIn = await app.request
          .post('/api/session')
          .set(app.apiHeaders())
          .send({ email: a.credentials.finance.email, password: a.credentials.finance.password })
          .timeout({ response: 10_000 });
        expect(signIn.status).toBe(503);
        expect(codeOf(signIn)).toBe('store_unavailable');
        expect(signIn.headers['retry-after']).toBe('5');
        expect(signIn.headers['set-cookie']).toBeUndefined();

        const edit = await app.request
          .patch(`/api/cards/${id}`)
          .set(admin.headers())
          .send({ name: 'Written in an outage', expected: { name: before.name } })
          .timeout({ response: 20_000 });
        expect(edit.status).toBe(503);
        expect(codeOf(edit)).toBe('store_unavailable');
        expect(cardValuesSeen(a.sim, id).name).toBe(before.name);
      }
      // Signing out is a write: refused, and the session is not used on that replica again
      // until PostgreSQL says it is still there.
      const signOut = await b.request.delete('/api/session').set(admin.headers());
      expect(signOut.status).toBe(503);
      expect(codeOf(signOut)).toBe('store_unavailable');
      expect((await b.request.get('/api/cards').set(admin.headers())).status).toBe(503);

      // The bound: 30 s past the last good read, and not a millisecond more.
      clock.set(lastRead + STALE_MS);
      for (const app of [a, b]) {
        expect((await app.request.get('/api/cards').set(finance.headers())).status).toBe(200);
      }
      clock.advance(1);
      for (const app of [a, b]) {
        const res = await app.request.get('/api/cards').set(finance.headers());
        expect(res.status).toBe(503);
        expect(codeOf(res)).toBe('store_unavailable');
        expect(res.headers['retry-after']).toBe('5');
      }
    } finally {
      await engine.start();
    }

    // The pools open new connections by themselves; the sessions were kept on disk, the one
    // whose sign-out failed included.
    for (const app of [b, a]) {
      for (const who of [finance, admin]) {
        let read = await app.request.get('/api/cards').set(who.headers());
        while (read.status === 503) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          read = await app.request.get('/api/cards').set(who.headers());
        }
        expect(read.status).toBe(200);
      }
    }
    const edit = await a.request
      .patch(`/api/cards/${id}`)
      .set(admin.headers())
      .send({ name: 'Written after the outage', expected: { name: before.name } });
    expect(edit.status).toBe(200);
    expect(cardValuesSeen(a.sim, id).name).toBe('Written after the outage');
    await signInAdmin(a);
  });
});
