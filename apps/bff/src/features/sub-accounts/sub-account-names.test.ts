// Sub-account names are unique (case, surrounding spaces and compatibility forms aside), over
// real HTTP against the simulator, which itself would take duplicates: refused with 409, and
// creates of one name sent at once, to one replica or to two sharing a PostgreSQL, make one.
import { randomBytes } from 'node:crypto';
import { apiErrorBodySchema } from '@card-console/shared/api/error';
import { subAccountNameKey } from '@card-console/shared/api/sub-accounts';
import type { UpstreamSubAccount } from '@card-console/shared/upstream/sub-account';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AuditStore } from '../../platform/audit/audit-store';
import { MemoryKeyedLock } from '../../platform/locks/memory-keyed-lock';
import type { Who } from '../../platform/sessions/who';
import { testDatabase } from '../../test/engines/postgres';
import { ManualClock, startTestApp, type TestApp, type TestSession } from '../../test/harness';
import type { UpstreamClient } from '../../upstream/client';
import { createSubAccountsService } from './sub-accounts-service';

const named = (app: TestApp, name: string) =>
  app.sim.data.subAccounts().filter((s) => subAccountNameKey(s.name) === subAccountNameKey(name));

describe('POST /api/sub-accounts with a name already taken', () => {
  let t: TestApp;
  let admin: TestSession;

  beforeAll(async () => {
    t = await startTestApp({ sim: { subAccounts: 30, transactions: 100 } });
    admin = await t.signIn('admin');
  });
  afterAll(async () => t.close());
  afterEach(() => {
    t.sim.faults.clear();
    t.sim.stats.reset();
  });

  const create = (name: string) =>
    t.request.post('/api/sub-accounts').set(admin.headers()).send({ name });

  it('the demo names are unique already', () => {
    const keys = t.sim.data.subAccounts().map((s) => subAccountNameKey(s.name));
    expect(new Set(keys).size).toBe(keys.length);
  });

  it.each([
    ['the same name', 'Marketing'],
    ['other letter case', 'MARKETING'],
    ['spaces around it', '  marketing\t'],
    ['full-width letters', 'Ｍａｒｋｅｔｉｎｇ'],
  ])('is a 409 for %s, names the existing one, creates nothing and is audited', async (_, name) => {
    const before = t.sim.data.subAccounts().length;
    const res = await create(name);
    expect(res.status).toBe(409);
    const body = apiErrorBodySchema.parse(res.body);
    expect(body.code).toBe('sub_account_name_taken');
    expect(body.detail).toContain('A sub account named “Marketing” already exists.');
    expect(t.sim.data.subAccounts()).toHaveLength(before);
    expect(t.sim.stats.count('POST /sub-account')).toBe(0);
    const records = (await t.audit.list({ limit: 100 })).items.filter(
      (r) => r.requestId === res.headers['x-request-id'],
    );
    expect(records).toMatchObject([
      {
        action: 'subAccount.create',
        outcome: 'failed',
        detail: expect.stringContaining('sub_account_name_taken'),
      },
    ]);
  });

  it('finds a name taken on a later page of the list', async () => {
    // 30 sub accounts, 25 a page: the last ones are on page two.
    const last = t.sim.data.subAccounts().at(-1)?.name ?? '';
    expect(t.sim.data.subAccounts().findIndex((s) => s.name === last)).toBeGreaterThanOrEqual(25);
    const res = await create(last.toLowerCase());
    expect(res.status).toBe(409);
    expect(res.body.detail).toContain(`“${last}”`);
  });

  it('a name only alike in part is free', async () => {
    const res = await create('Marketing Europe');
    expect(res.status).toBe(201);
    expect(named(t, 'Marketing Europe')).toHaveLength(1);
  });

  it('of 12 creates of one name sent at once, in different cases, exactly one is created', async () => {
    const variants = ['Field Ops', 'field ops', 'FIELD OPS', ' Field Ops '];
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => create(variants[i % variants.length] as string)),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, ...Array(11).fill(409)]);
    for (const r of results.filter((x) => x.status === 409)) {
      expect(apiErrorBodySchema.parse(r.body).code).toBe('sub_account_name_taken');
    }
    expect(named(t, 'field ops')).toHaveLength(1);
    expect(t.sim.stats.count('POST /sub-account')).toBe(1);
  });

  it('creates of different names at once are not held up by each other', async () => {
    const names = Array.from({ length: 6 }, (_, i) => `Project ${i}`);
    const results = await Promise.all(names.map(create));
    expect(results.map((r) => r.status)).toEqual(Array(6).fill(201));
  });

  it('a list the service fails to give refuses the create, which is not sent', async () => {
    t.sim.faults.enqueue({ kind: 'status', status: 500, route: 'GET /sub-account' });
    const res = await create('Unchecked');
    expect(res.status).toBeGreaterThanOrEqual(500);
    apiErrorBodySchema.parse(res.body);
    expect(t.sim.stats.count('POST /sub-account')).toBe(0);
    expect(named(t, 'Unchecked')).toHaveLength(0);
  });
});

describe('the check inside the lock', () => {
  it('reads the list afresh: a shared read that predates the last create is not trusted', async () => {
    const subAccounts: UpstreamSubAccount[] = [{ id: 'sa_1', name: 'Operations' }];
    // What a read joined while in flight would give: the list before any create.
    const before = [...subAccounts];
    const upstream = {
      listSubAccounts: async (_ctx: unknown, _query: unknown, options?: { fresh?: boolean }) => ({
        items: options?.fresh ? subAccounts : before,
        metadata: {},
      }),
      createSubAccount: async (_ctx: unknown, body: { name: string }) => {
        const created = { id: `sa_${subAccounts.length + 1}`, name: body.name };
        subAccounts.push(created);
        return created;
      },
    } as unknown as UpstreamClient;
    const audit = { append: async () => ({}) } as unknown as AuditStore;
    const service = createSubAccountsService({
      upstream,
      audit,
      locks: new MemoryKeyedLock({ waitMs: 1_000 }),
    });
    const who = {
      requestId: 'req-names',
      actor: { email: 'a@example.test', role: 'admin' },
    } as Who;
    await service.create(who, { name: 'Travel' });
    await expect(service.create(who, { name: 'travel' })).rejects.toMatchObject({
      status: 409,
      code: 'sub_account_name_taken',
    });
    expect(subAccounts).toHaveLength(2);
  });
});

describe('two replicas sharing one PostgreSQL', () => {
  let database: Awaited<ReturnType<typeof testDatabase>>;
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    database = await testDatabase();
    const clock = new ManualClock();
    const shared = { databaseUrl: database.url };
    const env = { sessionSecret: randomBytes(32).toString('hex') };
    a = await startTestApp({ clock, shared, env, sim: { transactions: 100 } });
    b = await startTestApp({ clock, shared, env, upstreamOf: a });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await database?.stop();
  });

  it('creates of one name sent at once to both make exactly one sub account', async () => {
    // One session, in the shared store: good on both replicas.
    const admin = await a.signIn('admin');
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => {
        const app = i % 2 ? b : a;
        return app.request
          .post('/api/sub-accounts')
          .set(admin.headers())
          .send({ name: i % 3 ? 'Regional Sales' : 'regional sales' });
      }),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, ...Array(9).fill(409)]);
    expect(named(a, 'Regional Sales')).toHaveLength(1);
  });
});
