// The People rules that must hold however many replicas serve at once, with parallel requests
// over HTTP to two apps sharing one store (and one session store): two admins each demoting,
// disabling or removing the other at the same moment → exactly one succeeds, the other is told
// 409 last_admin, and an enabled admin is always left; two acceptances of one invitation at
// once → one 201, one 410. On PostgreSQL (two pools, as two replicas have) and on the embedded
// engine (two apps over one in-process instance). The apps are the People endpoints as the app
// builds them (src/test/people-test-app.ts), whose sessions stay valid after their person changed: the
// loser always reaches the store and its last-admin rule. people-real-replicas.test.ts runs the
// same races on two whole apps, where the loser's session may end first.
import { apiErrorBodySchema } from '@card-console/shared/api/error';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemorySessionStore } from '../../platform/sessions/session-store';
import { applyIndexMigrations } from '../../platform/sql/index-migrations';
import { postgresEngine, type SqlEngine } from '../../platform/sql/sql-engine';
import { silentLogger } from '../../test/audit-cluster';
import { migratedMemoryEngine } from '../../test/engines/embedded';
import { testDatabase } from '../../test/engines/postgres';
import { ManualClock } from '../../test/manual-clock';
import { FakePersonSessions, type PeopleTestApp, startPeopleApp } from '../../test/people-test-app';
import { testTotpSecrets } from '../../test/totp-keys';
import { PeopleStore } from './people-store';
import { emptyPeople, fileUser } from './people-store.contract';
import { isActiveAdmin } from './person';

const ANA = 'ana@example.test';
const BO = 'bo@example.test';
const NEW = 'new@example.test';
const ROUNDS = 4;
const enc = encodeURIComponent;

type OpenEngines = () => Promise<{ engines: [SqlEngine, SqlEngine]; close(): Promise<void> }>;

function replicaRaces(name: string, open: OpenEngines) {
  describe(`People on two replicas (${name})`, () => {
    let engines: [SqlEngine, SqlEngine];
    let closeEngines: () => Promise<void>;
    let replicas: [PeopleTestApp, PeopleTestApp];
    let stores: [PeopleStore, PeopleStore];
    const clock = new ManualClock();

    beforeAll(async () => {
      ({ engines, close: closeEngines } = await open());
      const box = testTotpSecrets();
      stores = [new PeopleStore(engines[0], clock, box), new PeopleStore(engines[1], clock, box)];
      const sessionStore = new MemorySessionStore(clock);
      const sessions = new FakePersonSessions();
      const first = await startPeopleApp({ store: stores[0], clock, sessionStore, sessions });
      const second = await startPeopleApp({
        store: stores[1],
        clock,
        sessionStore,
        sessions,
        secret: first.secret,
      });
      replicas = [first, second];
    }, 60_000);
    afterAll(async () => {
      await Promise.all(replicas?.map((r) => r.close()) ?? []);
      await closeEngines?.();
    });

    /** Ana and Bo, both enabled admins who can sign in, each with a stepped-up session. */
    async function twoAdmins() {
      await emptyPeople(engines[0]);
      await stores[0].importUsers([await fileUser(ANA, 'admin'), await fileUser(BO, 'admin')]);
      const [a, b] = replicas;
      return { a, b, ana: await a.signIn(ANA, 'admin'), bo: await b.signIn(BO, 'admin') };
    }

    async function activeAdmins() {
      const people = await stores[1].list();
      return people.filter((p) => p.role === 'admin' && !p.disabled).map((p) => p.email);
    }

    const changes = {
      demote: (app: PeopleTestApp, cookie: { cookie: string; ref: string }, email: string) =>
        app.request
          .put(`/api/people/${enc(email)}/role`)
          .set(app.headers(cookie))
          .send({ role: 'finance' }),
      disable: (app: PeopleTestApp, cookie: { cookie: string; ref: string }, email: string) =>
        app.request.post(`/api/people/${enc(email)}/disable`).set(app.headers(cookie)),
      remove: (app: PeopleTestApp, cookie: { cookie: string; ref: string }, email: string) =>
        app.request.delete(`/api/people/${enc(email)}`).set(app.headers(cookie)),
    };

    for (const [kind, send] of Object.entries(changes)) {
      it(`two admins who ${kind} each other at once: one succeeds, one 409 last_admin`, async () => {
        for (let round = 0; round < ROUNDS; round++) {
          const { a, b, ana, bo } = await twoAdmins();
          const [byAna, byBo] = await Promise.all([send(a, ana, BO), send(b, bo, ANA)]);
          const statuses = [byAna.status, byBo.status].sort();
          expect(statuses, JSON.stringify([byAna.body, byBo.body])).toEqual([
            kind === 'remove' ? 204 : 200,
            409,
          ]);
          const refused = byAna.status === 409 ? byAna : byBo;
          expect(apiErrorBodySchema.parse(refused.body).code).toBe('last_admin');
          // The one whose change went through is the admin left.
          const winner = byAna.status === 409 ? BO : ANA;
          expect(await activeAdmins()).toEqual([winner]);
          const left = await stores[0].find(winner);
          expect(left && isActiveAdminSummary(left)).toBe(true);
        }
      });
    }

    it('two acceptances of one invitation at once: one 201, one 410', async () => {
      for (let round = 0; round < 3; round++) {
        const { a, b, ana } = await twoAdmins();
        const invited = await a.request
          .post('/api/people/invitations')
          .set(a.headers(ana))
          .send({ email: NEW, role: 'finance' });
        expect(invited.status).toBe(201);
        const token = String(invited.body.link).split('#')[1];
        const accept = (app: PeopleTestApp, password: string) =>
          app.request.post('/api/invitations/accept').set(app.headers()).send({ token, password });
        const answers = await Promise.all([
          accept(a, 'first long password'),
          accept(b, 'second long password'),
        ]);
        expect(
          answers.map((r) => r.status).sort(),
          JSON.stringify(answers.map((r) => r.body)),
        ).toEqual([201, 410]);
        const lost = answers.find((r) => r.status === 410);
        expect(apiErrorBodySchema.parse(lost?.body).code).toBe('invitation_used');
        const person = await stores[1].find(NEW);
        expect(person?.pending).toBe(false);
      }
    });
  });
}

/** An enabled admin who can sign in, as the store counts them. */
function isActiveAdminSummary(p: { role: string; disabled: boolean; hasPassword: boolean }) {
  return isActiveAdmin({
    role: p.role,
    disabled: p.disabled,
    password_hash: p.hasPassword ? 'x' : null,
    sso_issuer: null,
  } as Parameters<typeof isActiveAdmin>[0]);
}

replicaRaces('embedded engine, one instance', async () => {
  const engine = await migratedMemoryEngine();
  return { engines: [engine, engine], close: () => engine.close() };
});

let database: Awaited<ReturnType<typeof testDatabase>> | undefined;
afterAll(() => database?.stop());

replicaRaces('PostgreSQL, two pools', async () => {
  database = await testDatabase();
  const url = database.url;
  const owner = postgresEngine(new pg.Pool({ connectionString: url, max: 1 }));
  try {
    await applyIndexMigrations(owner, silentLogger);
  } finally {
    await owner.close();
  }
  const engines = [0, 1].map(() =>
    postgresEngine(new pg.Pool({ connectionString: url, max: 5 })),
  ) as [SqlEngine, SqlEngine];
  return { engines, close: async () => void (await Promise.all(engines.map((e) => e.close()))) };
});
