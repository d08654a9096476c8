// Security for every role on two replicas sharing one PostgreSQL, over real HTTP (decision 0120):
// the policy an admin saves through one replica holds new sign-ins on the other within the
// policy's read interval, and an authenticator app set up through one replica is confirmed
// through the other (its pending secret and wrong-code count live in the shared one-time store).
import { randomBytes } from 'node:crypto';
import { generateSync } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabase } from '../../test/engines/postgres';
import { ManualClock, startTestApp, type TestApp, type TestSession } from '../../test/harness';
import { replicaStores } from '../../test/replica-stores';
import { POLICY_CACHE_MS } from '../security-policy';

describe('security for every role on two replicas sharing one PostgreSQL', () => {
  let database: Awaited<ReturnType<typeof testDatabase>>;
  let clock: ManualClock;
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    database = await testDatabase();
    clock = new ManualClock();
    const shared = { databaseUrl: database.url };
    const env = { sessionSecret: randomBytes(32).toString('hex') };
    // The policy lives with the index's tables: each replica opens them on the one PostgreSQL.
    const index = () => replicaStores(database.url);
    a = await startTestApp({ clock, shared, env, stores: index(), sim: { transactions: 5 } });
    b = await startTestApp({ clock, shared, env, upstreamOf: a, stores: index() });
  }, 60_000);
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await database?.stop();
  });

  const subAccounts = (app: TestApp, session: TestSession) =>
    app.request.get('/api/sub-accounts').set(session.headers());
  const setPolicy = (app: TestApp, admin: TestSession, requireSecondFactor: boolean) =>
    app.request.put('/api/security-policy').set(admin.headers()).send({ requireSecondFactor });
  const financeSignIn = (app: TestApp, totp?: string) =>
    app.request
      .post('/api/session')
      .set(app.apiHeaders())
      .send({ ...a.credentials.finance, ...(totp ? { totp } : {}) });
  /** The code an authenticator app holding `secret` shows now (by the replicas' clock). */
  const codeOf = (secret: string) =>
    generateSync({ secret, epoch: Math.floor(clock.now() / 1000) });
  const confirm = (app: TestApp, session: TestSession, code: string) =>
    app.request.post('/api/second-factors/totp').set(session.headers()).send({ code });
  const startSetup = async (app: TestApp, session: TestSession): Promise<string> => {
    const started = await app.request
      .post('/api/second-factors/totp/setup')
      .set(session.headers())
      .send({});
    expect(started.status).toBe(200);
    return started.body.secret;
  };
  /** The secret finance's authenticator app holds, once a test has enrolled one. */
  let enrolledSecret: string | undefined;
  const financeSecret = () => {
    if (!enrolledSecret) throw new Error('no authenticator app enrolled by an earlier test');
    return enrolledSecret;
  };
  const enrolments = async () => {
    const lists = await Promise.all([a, b].map((app) => app.audit.list({ limit: 200 })));
    return lists.flatMap(({ items }) => items.filter((r) => r.action === 'factor.enrolled'));
  };

  it('turned on through A, the policy holds a finance sign-in on B within its read interval; turned off through B, that session works on A as soon', async () => {
    const admin = await a.signIn('admin');
    // Each replica has read the policy (off): B's read is the one A's change must outlast.
    const early = await b.signIn('finance');
    expect((await subAccounts(b, early)).status).toBe(200);
    expect((await subAccounts(a, early)).status).toBe(200);
    clock.advance(1_000);

    expect((await setPolicy(a, admin, true)).status).toBe(200);
    clock.advance(POLICY_CACHE_MS);
    const held = await b.signIn('finance');
    for (const app of [b, a]) {
      const refused = await subAccounts(app, held);
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ code: 'second_factor_enrolment_required' });
    }
    // Signed in before the policy: asked at the next sign-in, on either replica.
    expect((await subAccounts(b, early)).status).toBe(200);

    expect((await setPolicy(b, admin, false)).status).toBe(200);
    clock.advance(POLICY_CACHE_MS);
    for (const app of [a, b]) expect((await subAccounts(app, held)).status).toBe(200);
  });

  it('five wrong codes for a setup started on A, split across A and B, drop it on both', async () => {
    const session = await a.signIn('finance');
    const secret = await startSetup(a, session);
    const wrong = codeOf(secret) === '000000' ? '111111' : '000000';
    const answers = [];
    for (const app of [b, a, b, a, b]) {
      const res = await confirm(app, session, wrong);
      answers.push(res.status);
    }
    expect(answers).toEqual([422, 422, 422, 422, 422]);
    for (const app of [a, b]) {
      const gone = await confirm(app, session, codeOf(secret));
      expect(gone.status).toBe(409);
      expect(gone.body).toMatchObject({ code: 'no_totp_setup' });
    }
    expect(await enrolments()).toEqual([]);
  });

  it('set up through A, a typo on B keeps it; the right code sent to A and B at once enrols the app once; the next sign-in on either asks for its code', async () => {
    const session = await a.signIn('finance');
    const secret = await startSetup(a, session);
    enrolledSecret = secret;
    const code = codeOf(secret);
    // A typo sent to B leaves the setup A started in place for the next try.
    const typo = await confirm(b, session, code === '000000' ? '111111' : '000000');
    expect(typo.status).toBe(422);
    const answers = await Promise.all([confirm(a, session, code), confirm(b, session, code)]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(answers.find((r) => r.status === 409)?.body).toMatchObject({ code: 'no_totp_setup' });
    expect(await enrolments()).toEqual([
      expect.objectContaining({ actor: a.credentials.finance.email, method: 'totp' }),
    ]);

    for (const app of [b, a]) {
      const asked = await financeSignIn(app);
      expect(asked.status).toBe(401);
      expect(asked.body).toMatchObject({
        code: 'second_factor_required',
        secondFactor: { methods: ['totp'] },
      });
    }
    // The confirming code is used up on both; the app's next one signs in on B.
    expect((await financeSignIn(b, code)).status).toBe(401);
    clock.advance(30_000);
    expect((await financeSignIn(b, codeOf(secret))).status).toBe(200);
  });

  it('a replica whose TOTP keys do not open that secret answers 503 second_factor_unavailable; given the old key as a previous one, it signs in and seals the secret again under the new key', async () => {
    const secret = financeSecret();
    const started: TestApp[] = [];
    try {
      const wrong = await startTestApp({
        clock,
        shared: { databaseUrl: database.url },
        env: {
          sessionSecret: a.config.sessionSecret,
          totpKeys: { current: randomBytes(32), previous: [] },
        },
        upstreamOf: a,
      });
      started.push(wrong);
      clock.advance(30_000);
      const refused = await financeSignIn(wrong, codeOf(secret));
      expect(refused.status).toBe(503);
      expect(refused.body).toMatchObject({ code: 'second_factor_unavailable' });
      expect(refused.body.detail).toMatch(/encryption key does not open it/);

      const newKey = randomBytes(32);
      const withKeys = async (current: Buffer, previous: Buffer[]) => {
        const app = await startTestApp({
          clock,
          shared: { databaseUrl: database.url },
          env: { sessionSecret: a.config.sessionSecret, totpKeys: { current, previous } },
          upstreamOf: a,
        });
        started.push(app);
        return app;
      };
      const rotated = await withKeys(newKey, [a.config.totpKeys.current]);
      clock.advance(30_000);
      expect((await financeSignIn(rotated, codeOf(secret))).status).toBe(200);
      // That use sealed it again under the new key: a replica holding only the new key reads it.
      const onlyNew = await withKeys(newKey, []);
      clock.advance(30_000);
      expect((await financeSignIn(onlyNew, codeOf(secret))).status).toBe(200);
    } finally {
      await Promise.all(started.map((app) => app.close()));
    }
  });
});
