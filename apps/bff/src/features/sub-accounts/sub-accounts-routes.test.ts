import { apiErrorBodySchema } from '@card-console/shared/api/error';
import {
  subAccountCreatedSchema,
  subAccountPageSchema,
} from '@card-console/shared/api/sub-accounts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestSession } from '../../test/harness';

let t: TestApp;
let finance: TestSession;
let admin: TestSession;

beforeAll(async () => {
  t = await startTestApp({ sim: { subAccounts: 30, transactions: 1_000 } });
  finance = await t.signIn('finance');
  admin = await t.signIn('admin');
});
afterAll(async () => t.close());
afterEach(() => {
  t.sim.faults.clear();
  t.sim.stats.reset();
});

describe('GET /api/sub-accounts', () => {
  it('lists every sub account with balance and spend, page by page', async () => {
    const seen: unknown[] = [];
    let cursor: string | undefined;
    do {
      const res = await t.request
        .get('/api/sub-accounts')
        .query(cursor ? { cursor } : {})
        .set(finance.headers());
      expect(res.status).toBe(200);
      const page = subAccountPageSchema.parse(res.body);
      seen.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(
      t.sim.data.subAccounts().map((s) => ({
        id: s.id,
        name: s.name,
        balanceCents: s.balance.amountCents,
        spendCents: s.spend.amountCents,
      })),
    );
  });

  it('a tampered cursor is a 400, not a 500', async () => {
    const res = await t.request
      .get('/api/sub-accounts')
      .query({ cursor: 'bm90LWEtY3Vyc29y' })
      .set(finance.headers());
    expect(res.status).toBe(400);
    apiErrorBodySchema.parse(res.body);
  });
});

describe('POST /api/sub-accounts', () => {
  it('creates a sub account (201) and audits it with the new id', async () => {
    const res = await t.request
      .post('/api/sub-accounts')
      .set(admin.headers())
      .send({ name: 'Marketing EMEA' });
    expect(res.status).toBe(201);
    const created = subAccountCreatedSchema.parse(res.body);
    expect(created.name).toBe('Marketing EMEA');
    expect(t.sim.data.subAccounts().some((s) => s.id === created.id)).toBe(true);
    const records = (await t.audit.list({ limit: 100 })).items.filter(
      (r) => r.requestId === res.headers['x-request-id'],
    );
    expect(records).toMatchObject([
      {
        action: 'subAccount.create',
        outcome: 'success',
        subAccountId: created.id,
        actor: t.credentials.admin.email,
      },
      { action: 'subAccount.create', outcome: 'started', detail: 'name "Marketing EMEA"' },
    ]);
    expect(t.sim.stats.count('POST /sub-account')).toBe(1);
  });

  it('a bad body creates nothing', async () => {
    const before = t.sim.data.subAccounts().length;
    for (const body of [{}, { name: '' }, { name: 'x', extra: true }, { name: 'y'.repeat(101) }]) {
      const res = await t.request.post('/api/sub-accounts').set(admin.headers()).send(body);
      expect(res.status).toBe(400);
      apiErrorBodySchema.parse(res.body);
    }
    expect(t.sim.data.subAccounts().length).toBe(before);
    expect(t.sim.stats.count('POST /sub-account')).toBe(0);
  });

  it('when the upstream fails, the POST is sent once, the person gets a 5xx body, and the failure is audited', async () => {
    t.sim.faults.enqueue({ kind: 'status', status: 503, method: 'POST' });
    const res = await t.request
      .post('/api/sub-accounts')
      .set(admin.headers())
      .send({ name: 'Never twice' });
    expect(res.status).toBe(503);
    expect(apiErrorBodySchema.parse(res.body).code).toBe('upstream_unavailable');
    expect(t.sim.stats.count('POST /sub-account')).toBe(1);
    const records = (await t.audit.list({ limit: 100 })).items.filter(
      (r) => r.requestId === res.body.requestId,
    );
    expect(records).toMatchObject([
      { action: 'subAccount.create', outcome: 'failed' },
      { action: 'subAccount.create', outcome: 'started' },
    ]);
  });
});
