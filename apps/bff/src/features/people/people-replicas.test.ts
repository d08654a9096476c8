// Two replicas (two apps) sharing one people store and one session store, over real HTTP: a
// change made to a person anywhere ends their session at their next request on the other one.

import { mkdtemp, rm } from 'node:fs/promises';
import type http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileFactorStore } from '../../platform/passkeys/file-factor-store';
import { MemorySessionStore } from '../../platform/sessions/session-store';
import { demoAccounts, demoPassword } from '../../platform/users/demo-accounts';
import { UserDirectory } from '../../platform/users/user-directory';
import type { Stores } from '../../stores';
import { ManualClock } from '../../test/manual-clock';
import {
  demoConfigIn,
  embeddedStoresFor,
  peopleDirectoryOf,
  peopleSessionsOf,
  servePeopleApp,
} from '../../test/people-whole-app';
import { sessionCookieFrom } from '../../test/test-session';
import type { sqlPersonSessions } from './sql-person-sessions';

const finance = demoAccounts.find((a) => a.role === 'finance');
if (!finance) throw new Error('the demo accounts have a finance person');

let dataDir: string;
let index: Stores;
const servers: http.Server[] = [];
const replicas: ReturnType<typeof supertest>[] = [];
let sessions: ReturnType<typeof sqlPersonSessions>;
let origin: string;
const clock = new ManualClock();

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'bff-people-replicas-'));
  const config = demoConfigIn(dataDir);
  origin = config.publicOrigin;
  // One engine for both: the database the replicas share.
  index = embeddedStoresFor(config);
  const people = await index.people();
  await people.importUsers((await UserDirectory.demo()).users());
  sessions = peopleSessionsOf(index, clock, config);
  const sessionStore = new MemorySessionStore(clock);
  const factorStore = await FileFactorStore.open(dataDir);
  for (let i = 0; i < 2; i++) {
    const { server, api } = await servePeopleApp({
      config,
      index,
      clock,
      auditDir: dataDir,
      sessionStore,
      factorStore,
      sessions,
      users: await peopleDirectoryOf(index),
    });
    servers.push(server);
    replicas.push(api);
  }
});

afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  await index.close();
  await rm(dataDir, { recursive: true, force: true, maxRetries: 5 });
});

const headers = (cookie?: string) => ({
  'X-CSRF': '1',
  Origin: origin,
  ...(cookie ? { Cookie: cookie } : {}),
});

async function signInOn(replica: ReturnType<typeof supertest>): Promise<string> {
  const res = await replica
    .post('/api/session')
    .set(headers())
    .send({ email: finance?.email, password: demoPassword });
  expect(res.status).toBe(200);
  const cookie = sessionCookieFrom(res, 'cc_session');
  if (!cookie) throw new Error('no session cookie');
  return cookie;
}

/** The status of `GET /api/session` on both replicas at once, `times` each. */
async function statusesEverywhere(cookie: string, times = 3): Promise<number[]> {
  const calls = replicas.flatMap((replica) =>
    Array.from({ length: times }, () => replica.get('/api/session').set(headers(cookie))),
  );
  return (await Promise.all(calls)).map((res) => res.status);
}

describe('people on two replicas sharing one store', () => {
  it('a person disabled through the store is signed out at their next request on the other replica', async () => {
    const [a, b] = replicas as [ReturnType<typeof supertest>, ReturnType<typeof supertest>];
    const cookie = await signInOn(a);
    expect((await b.get('/api/session').set(headers(cookie))).body).toMatchObject({
      email: finance?.email,
      role: 'finance',
    });
    const people = await index.people();
    expect((await people.find(finance?.email))?.lastSignIn?.method).toBe('password');

    await people.disable(finance?.email);
    const after = await b.get('/api/session').set(headers(cookie));
    expect(after.status).toBe(401);
    expect(after.body).toMatchObject({ code: 'unauthenticated' });
    expect(await statusesEverywhere(cookie)).toEqual(Array(6).fill(401));
    // Disabled: no new session either, on either replica.
    const refused = await b
      .post('/api/session')
      .set(headers())
      .send({ email: finance?.email, password: demoPassword });
    expect(refused.status).toBe(401);
    await people.enable(finance?.email);
  });

  it('a session an admin ends on one replica ends at its next request on the other', async () => {
    const [a, b] = replicas as [ReturnType<typeof supertest>, ReturnType<typeof supertest>];
    const onA = await signInOn(a);
    clock.advance(1_000);
    const onB = await signInOn(b);
    const open = await sessions.list(finance?.email as string);
    expect(open).toHaveLength(2);
    const newest = open[0]?.id as string;
    expect(await sessions.end(finance?.email as string, newest)).toBe(true);
    // The newest is the one signed in on b: the cookie's holder there is signed out everywhere.
    expect(await statusesEverywhere(onB)).toEqual(Array(6).fill(401));
    expect(await statusesEverywhere(onA)).toEqual(Array(6).fill(200));
    expect(await sessions.endAll(finance?.email as string)).toBe(1);
    expect((await a.get('/api/session').set(headers(onA))).status).toBe(401);
  });

  it('a role change, then a removal, made while the person is using both replicas: their in-flight requests are answered (200 or 401, nothing else), every later one is 401 on both', async () => {
    const [a, b] = replicas as [ReturnType<typeof supertest>, ReturnType<typeof supertest>];
    const people = await index.people();
    const email = finance?.email as string;
    for (const change of [
      () => people.changeRole(email, 'admin'),
      () => people.remove(email),
    ] as const) {
      const cookie = await signInOn(a);
      expect(await statusesEverywhere(cookie, 2)).toEqual(Array(4).fill(200));
      const [inFlight] = await Promise.all([statusesEverywhere(cookie, 4), change()]);
      for (const status of inFlight) expect([200, 401]).toContain(status);
      expect(await statusesEverywhere(cookie)).toEqual(Array(6).fill(401));
      if ((await people.find(email))?.role === 'admin') await people.changeRole(email, 'finance');
    }
    // Removed: no new session on either replica.
    for (const replica of [a, b]) {
      const refused = await replica
        .post('/api/session')
        .set(headers())
        .send({ email, password: demoPassword });
      expect(refused.status).toBe(401);
    }
  });
});
