// The People races on two whole apps (createApp, as server.ts builds them) sharing one people
// store and one session store, the admins signed in through the real sign-in with their codes:
// two admins each demoting, disabling or removing the other at once → exactly one succeeds and
// an enabled admin is always left. The other is refused 409 last_admin when its request reached
// the store, or 401 when the winner's change had already ended its session (the person's
// version moved): either way it changed nothing. Two acceptances of one invitation at once →
// one 201, one 410. On the embedded engine (one instance) and PostgreSQL (a pool per replica).

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
import { MemorySessionStore } from '../../platform/sessions/session-store';
import { applyIndexMigrations } from '../../platform/sql/index-migrations';
import { postgresEngine, type SqlEngine } from '../../platform/sql/sql-engine';
import { demoScrypt, hashPassword } from '../../platform/users/password-hash';
import { openStores, type Stores } from '../../stores';
import { silentLogger } from '../../test/audit-cluster';
import { migratedMemoryEngine } from '../../test/engines/embedded';
import { testDatabase } from '../../test/engines/postgres';
import { ManualClock } from '../../test/manual-clock';
import {
  demoConfigIn,
  peopleDirectoryOf,
  peopleSessionsOf,
  servePeopleApp,
} from '../../test/people-whole-app';
import { sessionCookieFrom } from '../../test/test-session';
import { totpCodeAt } from '../../test/totp-source';
import type { PeopleStore } from './people-store';

const PASSWORD = 'a long enough password';
const SECRET = 'JBSWY3DPEHPK3PXQ';
const ROUNDS = 3;
const enc = encodeURIComponent;
type Replica = ReturnType<typeof supertest>;

function realReplicaRaces(name: string, engineFor: (replica: number) => Promise<SqlEngine>) {
  describe(`People races on two whole apps (${name})`, () => {
    const clock = new ManualClock();
    let dataDir: string;
    let origin: string;
    const indexes: Stores[] = [];
    const servers: http.Server[] = [];
    const replicas: Replica[] = [];
    let store: PeopleStore;
    let round = 0;
    let lastWinner: string | undefined;

    beforeAll(async () => {
      dataDir = await mkdtemp(join(tmpdir(), 'bff-people-races-'));
      const config = demoConfigIn(dataDir);
      origin = config.publicOrigin;
      const sessionStore = new MemorySessionStore(clock);
      const factorStore = await FileFactorStore.open(dataDir);
      for (let i = 0; i < 2; i++) {
        const engine = await engineFor(i);
        const index = openStores({
          open: async () => engine,
          migrate: false,
          logger: silentLogger,
          totpSecrets: new TotpSecretBox(config.totpKeys),
        });
        indexes.push(index);
        const { server, api } = await servePeopleApp({
          config,
          index,
          clock,
          auditDir: join(dataDir, `audit-${i}`),
          sessionStore,
          factorStore,
          sessions: peopleSessionsOf(index, clock, config),
          users: await peopleDirectoryOf(index),
        });
        servers.push(server);
        replicas.push(api);
      }
      store = await (indexes[0] as Stores).people();
    }, 60_000);

    afterAll(async () => {
      for (const s of servers) s.closeAllConnections();
      await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
      await Promise.all(indexes.map((i) => i.close().catch(() => undefined)));
      if (dataDir) await rm(dataDir, { recursive: true, force: true, maxRetries: 5 });
    });

    const headers = (cookie?: string) => ({
      'X-CSRF': '1',
      Origin: origin,
      ...(cookie ? { Cookie: cookie } : {}),
    });

    async function signIn(replica: Replica, email: string): Promise<string> {
      const res = await replica
        .post('/api/session')
        .set(headers())
        .send({ email, password: PASSWORD, totp: totpCodeAt(SECRET, clock.now()) });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const cookie = sessionCookieFrom(res, 'cc_session');
      if (!cookie) throw new Error('no session cookie');
      return cookie;
    }

    /**
     * Two new admins, each signed in (and so stepped up) on their own replica; the previous
     * round's admin removed, so these two are the only enabled admins.
     */
    async function twoAdmins() {
      round++;
      const ana = `ana-${round}@example.test`;
      const bo = `bo-${round}@example.test`;
      const passwordHash = await hashPassword(PASSWORD, demoScrypt);
      await store.importUsers([
        { email: ana, role: 'admin', passwordHash, totpSecret: SECRET },
        { email: bo, role: 'admin', passwordHash, totpSecret: SECRET },
      ]);
      if (lastWinner) await store.remove(lastWinner);
      // A code is good once per person and step: a fresh step for every round's sign-ins.
      clock.advance(30_000);
      const [a, b] = replicas as [Replica, Replica];
      return { a, b, ana, bo, anaCookie: await signIn(a, ana), boCookie: await signIn(b, bo) };
    }

    async function enabledAdmins() {
      return (await store.list())
        .filter((p) => p.role === 'admin' && !p.disabled && !p.pending)
        .map((p) => p.email);
    }

    const changes = {
      demote: (r: Replica, cookie: string, email: string) =>
        r
          .put(`/api/people/${enc(email)}/role`)
          .set(headers(cookie))
          .send({ role: 'finance' }),
      disable: (r: Replica, cookie: string, email: string) =>
        r.post(`/api/people/${enc(email)}/disable`).set(headers(cookie)),
      remove: (r: Replica, cookie: string, email: string) =>
        r.delete(`/api/people/${enc(email)}`).set(headers(cookie)),
    };

    for (const [kind, send] of Object.entries(changes)) {
      it(`two admins who ${kind} each other at once: exactly one succeeds, one admin left`, async () => {
        for (let i = 0; i < ROUNDS; i++) {
          const { a, b, ana, bo, anaCookie, boCookie } = await twoAdmins();
          const [byAna, byBo] = await Promise.all([send(a, anaCookie, bo), send(b, boCookie, ana)]);
          const bodies = JSON.stringify([byAna.body, byBo.body]);
          const ok = kind === 'remove' ? 204 : 200;
          const won = [byAna, byBo].filter((r) => r.status === ok);
          expect(won, bodies).toHaveLength(1);
          const lost = byAna.status === ok ? byBo : byAna;
          const code = apiErrorBodySchema.parse(lost.body).code;
          expect([
            [409, 'last_admin'],
            [401, 'unauthenticated'],
          ]).toContainEqual([lost.status, code]);
          lastWinner = byAna.status === ok ? ana : bo;
          expect(await enabledAdmins()).toEqual([lastWinner]);
        }
      });
    }

    it('two acceptances of one invitation at once: one 201, one 410', async () => {
      for (let i = 0; i < ROUNDS; i++) {
        const { a, b, anaCookie } = await twoAdmins();
        const email = `new-${round}@example.test`;
        const invited = await a
          .post('/api/people/invitations')
          .set(headers(anaCookie))
          .send({ email, role: 'finance' });
        expect(invited.status, JSON.stringify(invited.body)).toBe(201);
        const token = String(invited.body.link).split('#')[1];
        const answers = await Promise.all(
          [a, b].map((r) =>
            r.post('/api/invitations/accept').set(headers()).send({ token, password: PASSWORD }),
          ),
        );
        expect(
          answers.map((r) => r.status).sort(),
          JSON.stringify(answers.map((r) => r.body)),
        ).toEqual([201, 410]);
        const lost = answers.find((r) => r.status === 410);
        expect(apiErrorBodySchema.parse(lost?.body).code).toBe('invitation_used');
        expect((await store.find(email))?.pending).toBe(false);
        // The new person signs in on either replica.
        await signInFinance(b, email);
        await store.remove(`bo-${round}@example.test`);
        lastWinner = `ana-${round}@example.test`;
      }
    });

    async function signInFinance(replica: Replica, email: string) {
      const res = await replica
        .post('/api/session')
        .set(headers())
        .send({ email, password: PASSWORD });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({ email, role: 'finance' });
    }
  });
}

let embedded: SqlEngine | undefined;
realReplicaRaces('embedded engine, one instance', async () => {
  if (!embedded) {
    embedded = await migratedMemoryEngine();
  }
  return embedded;
});

let database: Awaited<ReturnType<typeof testDatabase>> | undefined;
afterAll(() => database?.stop());
realReplicaRaces('PostgreSQL, a pool per replica', async () => {
  if (!database) {
    database = await testDatabase();
    const owner = postgresEngine(new pg.Pool({ connectionString: database.url, max: 1 }));
    try {
      await applyIndexMigrations(owner, silentLogger);
    } finally {
      await owner.close();
    }
  }
  return postgresEngine(new pg.Pool({ connectionString: database.url, max: 5 }));
});
