// Two whole apps (createApp) sharing one PostgreSQL, wired as server.ts wires replicas with
// DATABASE_URL: each reads sessions and the people's standing through its own short cache. A
// person disabled or a session ended through one replica is refused there at once and on the
// other within FRESH_MS; with PostgreSQL stopped a session read in the last seconds still
// reads, while People changes answer 503 and change nothing.

import { mkdtemp, rm } from 'node:fs/promises';
import type http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiErrorBodySchema } from '@card-console/shared/api/error';
import pg from 'pg';
import type supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileFactorStore } from '../../platform/passkeys/file-factor-store';
import { TotpSecretBox } from '../../platform/security/totp-secret-box';
import { CachedSessionStore } from '../../platform/sessions/cached-session-store';
import { FRESH_MS } from '../../platform/sessions/outage-read-cache';
import { ACTIVITY_GRANULARITY_MS } from '../../platform/sessions/session-service';
import { SqlSessionStore } from '../../platform/sessions/sql-session-store';
import { applyIndexMigrations } from '../../platform/sql/index-migrations';
import { postgresEngine } from '../../platform/sql/sql-engine';
import { demoScrypt, hashPassword } from '../../platform/users/password-hash';
import { openStores, type Stores } from '../../stores';
import { silentLogger } from '../../test/audit-cluster';
import { type PostgresEngine, startPostgres } from '../../test/engines/postgres';
import { ManualClock } from '../../test/manual-clock';
import {
  demoConfigIn,
  peopleDirectoryOf,
  peopleSessionsOf,
  servePeopleApp,
} from '../../test/people-whole-app';
import { sessionCookieFrom } from '../../test/test-session';
import { totpCodeAt } from '../../test/totp-source';
import { cachedStandings } from './cached-standings';
import type { PeopleStore } from './people-store';

const PASSWORD = 'a long enough password';
const SECRET = 'JBSWY3DPEHPK3PXQ';
const enc = encodeURIComponent;
type Replica = ReturnType<typeof supertest>;

const clock = new ManualClock();
let postgres: PostgresEngine;
let dataDir: string;
let origin: string;
let store: PeopleStore;
let a: Replica;
let b: Replica;
const indexes: Stores[] = [];
const servers: http.Server[] = [];
let person = 0;

beforeAll(async () => {
  postgres = await startPostgres();
  const url = await postgres.createDatabase('card_console');
  const owner = postgresEngine(new pg.Pool({ connectionString: url, max: 1 }));
  await applyIndexMigrations(owner, silentLogger).finally(() => owner.close());
  dataDir = await mkdtemp(join(tmpdir(), 'bff-standings-'));
  const config = demoConfigIn(dataDir);
  origin = config.publicOrigin;
  const factorStore = await FileFactorStore.open(dataDir);
  const replicas: Replica[] = [];
  for (let i = 0; i < 2; i++) {
    // A pool per replica that fails at once when the server is away, as a replica's does.
    const engine = postgresEngine(
      new pg.Pool({ connectionString: url, max: 5, connectionTimeoutMillis: 3_000 }),
    );
    const index = openStores({
      open: async () => engine,
      migrate: false,
      logger: silentLogger,
      totpSecrets: new TotpSecretBox(config.totpKeys),
    });
    indexes.push(index);
    // As server.ts wires a replica with DATABASE_URL.
    const standings = cachedStandings(() => index.personSessions(), clock);
    const { server, api } = await servePeopleApp({
      config,
      index,
      clock,
      auditDir: join(dataDir, `audit-${i}`),
      sessionStore: new CachedSessionStore(new SqlSessionStore(engine), clock),
      factorStore,
      sessions: standings.forgetting(peopleSessionsOf(index, clock, config)),
      users: await peopleDirectoryOf(index, standings.table),
    });
    servers.push(server);
    replicas.push(api);
  }
  [a, b] = replicas as [Replica, Replica];
  store = await (indexes[0] as Stores).people();
}, 60_000);

afterAll(async () => {
  for (const s of servers) s.closeAllConnections();
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  await Promise.all(indexes.map((i) => i.close().catch(() => undefined)));
  await postgres?.destroy();
  if (dataDir) await rm(dataDir, { recursive: true, force: true, maxRetries: 5 });
});

const headers = (cookie?: string) => ({
  'X-CSRF': '1',
  Origin: origin,
  ...(cookie ? { Cookie: cookie } : {}),
});

async function signIn(replica: Replica, email: string, totp: boolean): Promise<string> {
  const res = await replica
    .post('/api/session')
    .set(headers())
    .send({
      email,
      password: PASSWORD,
      ...(totp ? { totp: totpCodeAt(SECRET, clock.now()) } : {}),
    });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const cookie = sessionCookieFrom(res, 'cc_session');
  if (!cookie) throw new Error('no session cookie');
  return cookie;
}

/** A new admin signed in (and so stepped up) on A, and a new finance person signed in on A. */
async function adminAndPerson() {
  person++;
  const admin = `admin-${person}@example.test`;
  const finance = `finance-${person}@example.test`;
  const passwordHash = await hashPassword(PASSWORD, demoScrypt);
  await store.importUsers([
    { email: admin, role: 'admin', passwordHash, totpSecret: SECRET },
    { email: finance, role: 'finance', passwordHash },
  ]);
  // A code is good once per person and step: a fresh step for every admin's sign-in.
  clock.advance(30_000);
  return {
    admin,
    finance,
    adminCookie: await signIn(a, admin, true),
    cookie: await signIn(a, finance, false),
  };
}

const status = async (replica: Replica, cookie: string) =>
  (await replica.get('/api/session').set(headers(cookie))).status;

describe('replicas reading sessions and standings through short caches (PostgreSQL)', () => {
  it('a person disabled through A is refused on A at once and on B within FRESH_MS', async () => {
    const { finance, adminCookie, cookie } = await adminAndPerson();
    // Both replicas have read the person's standing a moment ago.
    for (const replica of [a, b]) expect(await status(replica, cookie)).toBe(200);
    const disabled = await a.post(`/api/people/${enc(finance)}/disable`).set(headers(adminCookie));
    expect(disabled.status, JSON.stringify(disabled.body)).toBe(200);
    expect(await status(a, cookie)).toBe(401);
    clock.advance(FRESH_MS);
    expect(await status(b, cookie)).toBe(401);
  });

  it("an admin's end of a session through A is refused on A at once and on B within FRESH_MS", async () => {
    const { finance, adminCookie, cookie } = await adminAndPerson();
    // Both replicas have read the person's standing a moment ago.
    for (const replica of [a, b]) expect(await status(replica, cookie)).toBe(200);
    const listed = await a.get(`/api/people/${enc(finance)}/sessions`).set(headers(adminCookie));
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    const [open] = listed.body.sessions as { id: string }[];
    const ended = await a
      .delete(`/api/people/${enc(finance)}/sessions/${enc(open?.id ?? '')}`)
      .set(headers(adminCookie));
    expect(ended.status, JSON.stringify(ended.body)).toBeLessThan(300);
    expect(await status(a, cookie)).toBe(401);
    clock.advance(FRESH_MS);
    expect(await status(b, cookie)).toBe(401);
  });

  it('a person disabled behind the replicas (pnpm users) is refused on both within FRESH_MS', async () => {
    const { finance, cookie } = await adminAndPerson();
    for (const replica of [a, b]) expect(await status(replica, cookie)).toBe(200);
    await store.disable(finance);
    clock.advance(FRESH_MS);
    for (const replica of [a, b]) expect(await status(replica, cookie)).toBe(401);
  });

  it('PostgreSQL stopped: the session and standing read in the last seconds still answer on both replicas, recording activity fails no read; a People change answers 503 and changes nothing; all works again once it is back', async () => {
    const { finance, adminCookie, cookie } = await adminAndPerson();
    clock.advance(FRESH_MS);
    for (const replica of [a, b]) {
      expect(await status(replica, cookie)).toBe(200);
      expect(await status(replica, adminCookie)).toBe(200);
    }
    await postgres.stop();
    try {
      // Past the activity granularity: each read also tries to record activity, which fails.
      clock.advance(ACTIVITY_GRANULARITY_MS);
      for (const replica of [a, b]) {
        const me = await replica.get('/api/session').set(headers(cookie));
        expect(me.status, JSON.stringify(me.body)).toBe(200);
        expect(me.body.email).toBe(finance);
      }
      const refused = await a.post(`/api/people/${enc(finance)}/disable`).set(headers(adminCookie));
      expect(refused.status, JSON.stringify(refused.body)).toBe(503);
      expect(['store_unavailable', 'audit_unavailable']).toContain(
        apiErrorBodySchema.parse(refused.body).code,
      );
    } finally {
      await postgres.start();
    }
    expect((await store.find(finance))?.disabled).toBe(false);
    clock.advance(FRESH_MS);
    for (const replica of [a, b]) {
      let answer = await status(replica, cookie);
      while (answer === 503) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        answer = await status(replica, cookie);
      }
      expect(answer).toBe(200);
    }
    const disabled = await b.post(`/api/people/${enc(finance)}/disable`).set(headers(adminCookie));
    expect(disabled.status, JSON.stringify(disabled.body)).toBe(200);
    expect(await status(b, cookie)).toBe(401);
  });
});
