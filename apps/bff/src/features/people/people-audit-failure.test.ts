// Every People change commits with its audit record or not at all: with the trail refusing
// every append, each one answers 503 `audit_unavailable` and the people store (and the
// person's sessions) read back as they were; with the trail back, the same change goes through.
import { apiErrorBodySchema } from '@card-console/shared/api/error';
import { invitationCreatedSchema } from '@card-console/shared/api/people';
import type supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlEngine } from '../../platform/sql/sql-engine';
import { migratedMemoryEngine } from '../../test/engines/embedded';
import { FailingAuditStore } from '../../test/failing-audit';
import { ManualClock } from '../../test/manual-clock';
import { type PeopleTestApp, startPeopleApp, type TestCookie } from '../../test/people-test-app';
import { testTotpSecrets } from '../../test/totp-keys';
import { PeopleStore } from './people-store';
import { fileUser } from './people-store.contract';
import { PersonSessionTable } from './person-session-table';
import { sqlPersonSessions } from './sql-person-sessions';

const ANA = 'ana@example.test'; // the admin who calls
const enc = encodeURIComponent;

let engine: SqlEngine;
let clock: ManualClock;
let table: PersonSessionTable;
const limits = { idleMs: 60 * 60_000, absoluteMs: 12 * 60 * 60_000 };
let trail: FailingAuditStore;
let t: PeopleTestApp;
let ana: TestCookie;

beforeAll(async () => {
  engine = await migratedMemoryEngine();
  clock = new ManualClock();
  const store = new PeopleStore(engine, clock, testTotpSecrets());
  await store.importUsers([
    await fileUser(ANA, 'admin'),
    await fileUser('dee@example.test', 'admin'),
    ...(await Promise.all(
      ['role', 'disable', 'enable', 'remove', 'sessions', 'session'].flatMap((who) =>
        [1, 2].map((n) => fileUser(`${who}${n}@example.test`, 'finance')),
      ),
    )),
  ]);
  // Sessions in the same SQL store: ending them is a transaction the trail's record is part of.
  table = new PersonSessionTable(engine);
  const sessions = sqlPersonSessions({
    table: async () => table,
    people: async () => store,
    clock,
    limits,
  });
  t = await startPeopleApp({
    store,
    clock,
    sessions,
    audit: (jsonl) => {
      trail = new FailingAuditStore(jsonl);
      return trail;
    },
  });
  ana = await t.signIn(ANA, 'admin');
}, 60_000);
afterAll(async () => {
  await t?.close();
  await engine?.close();
});

const people = async () => {
  const res = await t.request.get('/api/people').set(t.headers(ana));
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};
const openSessions = async (email: string) => {
  const res = await t.request.get(`/api/people/${enc(email)}/sessions`).set(t.headers(ana));
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};
const invite = (email: string) =>
  t.request.post('/api/people/invitations').set(t.headers(ana)).send({ email, role: 'finance' });
let invited = 0;
const invitedToken = async (): Promise<string> => {
  const res = await invite(`invitee${++invited}@example.test`);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return new URL(invitationCreatedSchema.parse(res.body).link).hash.slice(1);
};
const withSession = async (email: string) => {
  const ref = `sess-${email.replace(/[^a-z0-9]/g, '')}`;
  await table.insert({ ref, email, method: 'password', at: clock.now(), ...limits });
  expect((await openSessions(email)).sessions).toMatchObject([{ id: ref }]);
  return ref;
};

/**
 * One kind of change: what it needs first (made with the trail working), the change, and what
 * it changes read back. Round 1 is refused by the trail, round 2 goes through.
 */
interface PeopleChange {
  name: string;
  arrange?: (round: number) => Promise<string | undefined>;
  act: (round: number, given: string | undefined) => Promise<supertest.Response>;
  read: (round: number) => Promise<unknown>;
}

const changes: PeopleChange[] = [
  {
    name: 'an invitation',
    act: (n) => invite(`new${n}@example.test`),
    read: people,
  },
  {
    name: 'an invitation withdrawn',
    arrange: async (n) => {
      expect((await invite(`withdrawn${n}@example.test`)).status).toBe(201);
      return undefined;
    },
    act: async (n) =>
      t.request
        .delete(`/api/people/invitations/${enc(`withdrawn${n}@example.test`)}`)
        .set(t.headers(ana)),
    read: people,
  },
  {
    name: 'a role',
    act: async (n) =>
      t.request
        .put(`/api/people/${enc(`role${n}@example.test`)}/role`)
        .set(t.headers(ana))
        .send({ role: 'admin' }),
    read: people,
  },
  {
    name: 'a person disabled',
    act: async (n) =>
      t.request.post(`/api/people/${enc(`disable${n}@example.test`)}/disable`).set(t.headers(ana)),
    read: people,
  },
  {
    name: 'a person enabled',
    arrange: async (n) => {
      const res = await t.request
        .post(`/api/people/${enc(`enable${n}@example.test`)}/disable`)
        .set(t.headers(ana));
      expect(res.status).toBe(200);
      return undefined;
    },
    act: async (n) =>
      t.request.post(`/api/people/${enc(`enable${n}@example.test`)}/enable`).set(t.headers(ana)),
    read: people,
  },
  {
    name: 'a person removed',
    act: async (n) =>
      t.request.delete(`/api/people/${enc(`remove${n}@example.test`)}`).set(t.headers(ana)),
    read: people,
  },
  {
    name: 'every session of a person ended',
    arrange: async (n) => withSession(`sessions${n}@example.test`),
    act: async (n) =>
      t.request
        .delete(`/api/people/${enc(`sessions${n}@example.test`)}/sessions`)
        .set(t.headers(ana)),
    read: (n) => openSessions(`sessions${n}@example.test`),
  },
  {
    name: 'one session of a person ended',
    arrange: async (n) => withSession(`session${n}@example.test`),
    act: async (n, id) =>
      t.request
        .delete(`/api/people/${enc(`session${n}@example.test`)}/sessions/${id}`)
        .set(t.headers(ana)),
    read: (n) => openSessions(`session${n}@example.test`),
  },
  {
    name: 'a sign-up from an invitation',
    arrange: invitedToken,
    act: async (_n, token) =>
      t.request
        .post('/api/invitations/accept')
        .set(t.headers())
        .send({ token, password: 'a long enough password' }),
    read: people,
  },
];

describe('a People change the trail cannot record is not made', () => {
  it.each(changes)(
    '$name: 503 audit_unavailable, nothing changed; with the trail back it is made',
    async (change) => {
      const given = await change.arrange?.(1);
      const before = await change.read(1);
      const res = await trail.failing(() => change.act(1, given));
      expect(res.status, JSON.stringify(res.body)).toBe(503);
      const problem = apiErrorBodySchema.parse(res.body);
      expect(problem.code).toBe('audit_unavailable');
      expect(await change.read(1)).toEqual(before);
      const recorded = (await t.audit.list({ limit: 1000 })).items;
      expect(recorded.filter((r) => r.requestId === problem.requestId)).toEqual([]);

      const again = await change.act(2, await change.arrange?.(2));
      expect(again.status, JSON.stringify(again.body)).toBeLessThan(300);
      const records = (await t.audit.list({ limit: 1000 })).items;
      expect(records.filter((r) => r.requestId === again.headers['x-request-id'])).toMatchObject([
        { outcome: 'success' },
      ]);
    },
  );
});
