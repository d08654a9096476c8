// The close policy over HTTP: everyone reads it, only admins set it, a body it cannot take is a
// 400 that names what is wrong, a save made on a version the policy moved on from is a 409 with
// the policy as it is (of saves made at once on one version, one is saved), a save of the policy
// in force records nothing, and every change (and every refused one) is audited with the policy
// before and after.
import { accountingCategorySchema } from '@card-console/shared/api/accounting-categories';
import { closePolicySchema } from '@card-console/shared/api/close-policy';
import { apiErrorBodySchema } from '@card-console/shared/api/error';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestSession } from '../../test/harness';

let t: TestApp;
let admin: TestSession;
let finance: TestSession;

beforeAll(async () => {
  t = await startTestApp();
  [admin, finance] = [await t.signIn('admin'), await t.signIn('finance')];
});
afterAll(async () => t?.close());
// Each test starts from the default policy.
beforeEach(async () => {
  await t.stores.sql.query('DELETE FROM close_policy');
});

const put = (session: TestSession, body: unknown) =>
  t.request
    .put('/api/close-policy')
    .set(session.headers())
    .send(body as object);
const read = async (session = finance) => {
  const res = await t.request.get('/api/close-policy').set(session.headers());
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return closePolicySchema.parse(res.body);
};
const auditFor = async (requestId: string | undefined) =>
  (await t.audit.list({ limit: 1000 })).items.filter((r) => r.requestId === requestId);

const DEFAULT = { receiptFromCents: 7_500, memoCategoryIds: [], version: 0 };
const successes = async () =>
  (await t.audit.list({ limit: 1000 })).items.filter(
    (r) => r.action === 'closePolicy.update' && r.outcome === 'success',
  );

let codes = 0;
async function category(name: string, archived = false) {
  const res = await t.request
    .post('/api/accounting-categories')
    .set(admin.headers())
    .send({ code: `CP-${++codes}`, name });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const created = accountingCategorySchema.parse(res.body);
  if (archived) {
    const patched = await t.request
      .patch(`/api/accounting-categories/${created.id}`)
      .set(admin.headers())
      .send({ archived: true });
    expect(patched.status).toBe(200);
  }
  return created;
}

describe('the close policy over HTTP', () => {
  it('is the default until set: receipts from $75, no memo categories, nobody named', async () => {
    expect(await t.request.get('/api/close-policy').set(finance.headers())).toMatchObject({
      status: 200,
      body: { receiptFromCents: 7_500, memoCategoryIds: [], version: 0 },
    });
    expect(await read(admin)).toEqual({ receiptFromCents: 7_500, memoCategoryIds: [], version: 0 });
  });

  it('is set by an admin, read back by finance, and audited before → after', async () => {
    const software = await category('Software');
    const saved = await put(admin, {
      receiptFromCents: 10_000,
      memoCategoryIds: [software.id],
      version: 0,
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(closePolicySchema.parse(saved.body)).toEqual({
      receiptFromCents: 10_000,
      memoCategoryIds: [software.id],
      updatedBy: t.credentials.admin.email,
      updatedAt: new Date(t.clock.now()).toISOString(),
      version: 1,
    });
    expect(await read(finance)).toEqual(saved.body);
    expect(await auditFor(saved.headers['x-request-id'])).toEqual([
      expect.objectContaining({
        action: 'closePolicy.update',
        outcome: 'success',
        actor: t.credentials.admin.email,
        target: 'close-policy',
        before: { receiptFrom: '$75.00', memoCategories: [] },
        after: { receiptFrom: '$100.00', memoCategories: [`${software.code} Software`] },
      }),
    ]);

    // No receipt policy at all.
    const none = await put(admin, { receiptFromCents: null, memoCategoryIds: [], version: 1 });
    expect(none.status).toBe(200);
    expect(await read()).toMatchObject({ receiptFromCents: null, memoCategoryIds: [], version: 2 });
    const [record] = await auditFor(none.headers['x-request-id']);
    expect(record).toMatchObject({
      before: { receiptFrom: '$100.00', memoCategories: [`${software.code} Software`] },
      after: { receiptFrom: 'none', memoCategories: [] },
    });
  });

  it('refuses finance (403), changing nothing, and records the refusal', async () => {
    const res = await put(finance, { receiptFromCents: 1, memoCategoryIds: [], version: 0 });
    expect(res.status).toBe(403);
    expect(apiErrorBodySchema.parse(res.body).code).toBe('forbidden');
    expect(await read()).toEqual(DEFAULT);
    expect(await auditFor(res.headers['x-request-id'])).toEqual([
      expect.objectContaining({
        action: 'access.denied',
        attempted: 'closePolicy.change',
        actor: t.credentials.finance.email,
        outcome: 'denied',
      }),
    ]);
  });

  it('answers a body it cannot take with 400 naming the field, and saves nothing', async () => {
    const software = await category('Software');
    const v = { version: 0 };
    const bodies: [unknown, string][] = [
      [{ ...v }, 'receiptFromCents'],
      [{ receiptFromCents: 7_500, ...v }, 'memoCategoryIds'],
      [{ receiptFromCents: -1, memoCategoryIds: [], ...v }, 'receiptFromCents'],
      [{ receiptFromCents: 75.5, memoCategoryIds: [], ...v }, 'receiptFromCents'],
      [{ receiptFromCents: '7500', memoCategoryIds: [], ...v }, 'receiptFromCents'],
      [{ receiptFromCents: 100_000_000_001, memoCategoryIds: [], ...v }, 'receiptFromCents'],
      [
        { receiptFromCents: 7_500, memoCategoryIds: [software.id, software.id], ...v },
        'memoCategoryIds',
      ],
      [{ receiptFromCents: 7_500, memoCategoryIds: ['..'], ...v }, 'memoCategoryIds'],
      [
        {
          receiptFromCents: 7_500,
          memoCategoryIds: Array.from({ length: 201 }, (_, i) => `c${i}`),
          ...v,
        },
        'memoCategoryIds',
      ],
      [{ receiptFromCents: 7_500, memoCategoryIds: [], extra: true, ...v }, 'extra'],
      // A save names the version it was made on.
      [{ receiptFromCents: 5_000, memoCategoryIds: [] }, 'version'],
      [{ receiptFromCents: 5_000, memoCategoryIds: [], version: -1 }, 'version'],
      [{ receiptFromCents: 5_000, memoCategoryIds: [], version: 1.5 }, 'version'],
      [{ receiptFromCents: 5_000, memoCategoryIds: [], version: '0' }, 'version'],
    ];
    for (const [body, field] of bodies) {
      const res = await put(admin, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      const problem = apiErrorBodySchema.parse(res.body);
      expect(problem.code, JSON.stringify(body)).toBe('invalid_body');
      expect(problem.detail, JSON.stringify(body)).toContain(field);
    }
    expect(await read()).toEqual(DEFAULT);
  });

  it('refuses a memo category that does not exist or is archived with 400 and a failed record', async () => {
    const current = await category('Travel');
    const old = await category('Old software', true);

    const archived = await put(admin, {
      receiptFromCents: 5_000,
      memoCategoryIds: [current.id, old.id],
      version: 0,
    });
    expect(archived.status).toBe(400);
    expect(apiErrorBodySchema.parse(archived.body)).toMatchObject({
      code: 'invalid_body',
      detail: `${old.code} Old software is archived. Choose current accounting categories for memos.`,
    });
    expect(await auditFor(archived.headers['x-request-id'])).toEqual([
      expect.objectContaining({
        action: 'closePolicy.update',
        outcome: 'failed',
        detail: 'invalid_body',
        before: { receiptFrom: '$75.00', memoCategories: [] },
        after: {
          receiptFrom: '$50.00',
          memoCategories: [`${current.code} Travel`, `${old.code} Old software`],
        },
      }),
    ]);

    const missing = await put(admin, {
      receiptFromCents: 5_000,
      memoCategoryIds: ['no-such-category'],
      version: 0,
    });
    expect(missing.status).toBe(400);
    expect(apiErrorBodySchema.parse(missing.body).detail).toBe(
      'One of the memo categories does not exist in the chart of accounts. Reload and choose again.',
    );
    const [record] = await auditFor(missing.headers['x-request-id']);
    expect(record).toMatchObject({
      outcome: 'failed',
      after: { receiptFrom: '$50.00', memoCategories: ['no-such-category'] },
    });
    expect(await read()).toEqual(DEFAULT);
  });

  it('two admins on one version: the later save is a 409 with the policy as it is, saves nothing, and is recorded as failed', async () => {
    // Both pages showed the default. A sets $100; B, who changed nothing, saves what it showed.
    const a = await put(admin, { receiptFromCents: 10_000, memoCategoryIds: [], version: 0 });
    expect(a.status, JSON.stringify(a.body)).toBe(200);
    const other = await t.signIn('admin');
    const b = await put(other, { receiptFromCents: 7_500, memoCategoryIds: [], version: 0 });
    expect(b.status, JSON.stringify(b.body)).toBe(409);
    expect(apiErrorBodySchema.parse(b.body)).toMatchObject({
      code: 'close_policy_changed',
      detail:
        'Another admin changed the close policy since you opened it. Review it as it is now and save again.',
      current: a.body,
    });
    expect(await read()).toEqual(a.body);
    expect(await auditFor(b.headers['x-request-id'])).toEqual([
      expect.objectContaining({
        action: 'closePolicy.update',
        outcome: 'failed',
        detail: 'close_policy_changed',
        before: { receiptFrom: '$100.00', memoCategories: [] },
        after: { receiptFrom: '$75.00', memoCategories: [] },
      }),
    ]);
    // Made on the version it answered with, B's save is saved.
    const again = await put(other, { receiptFromCents: 7_500, memoCategoryIds: [], version: 1 });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body).toMatchObject({ receiptFromCents: 7_500, version: 2 });
  });

  it('of saves made at once on one version, exactly one is saved and the others are 409s with it', async () => {
    const amounts = [1_000, 2_000, 3_000, 4_000, 5_000, 6_000, 7_000, 8_000];
    const recordsBefore = (await successes()).length;
    const answers = await Promise.all(
      amounts.map((cents) =>
        put(admin, { receiptFromCents: cents, memoCategoryIds: [], version: 0 }),
      ),
    );
    const statuses = answers.map((res) => res.status).sort();
    expect(statuses).toEqual([200, ...amounts.slice(1).map(() => 409)]);
    const saved = answers.find((res) => res.status === 200)?.body;
    expect(saved).toMatchObject({ version: 1 });
    for (const res of answers.filter((r) => r.status === 409)) {
      expect(res.body).toMatchObject({ code: 'close_policy_changed', current: saved });
    }
    expect(await read()).toEqual(saved);
    expect((await successes()).length - recordsBefore).toBe(1);
  });

  it('a save of the policy in force answers it and records nothing, with no new version', async () => {
    const recordsBefore = (await successes()).length;
    const same = await put(admin, { receiptFromCents: 7_500, memoCategoryIds: [], version: 0 });
    expect(same.status, JSON.stringify(same.body)).toBe(200);
    expect(same.body).toEqual(DEFAULT);
    expect(await auditFor(same.headers['x-request-id'])).toEqual([]);

    const software = await category('Software');
    const travel = await category('Travel');
    const set = await put(admin, {
      receiptFromCents: 10_000,
      memoCategoryIds: [software.id, travel.id],
      version: 0,
    });
    expect(set.status).toBe(200);
    const unchanged = await put(admin, {
      receiptFromCents: 10_000,
      memoCategoryIds: [travel.id, software.id],
      version: 1,
    });
    expect(unchanged.status).toBe(200);
    expect(unchanged.body).toEqual(set.body);
    expect(await auditFor(unchanged.headers['x-request-id'])).toEqual([]);
    expect((await successes()).length - recordsBefore).toBe(1);
    expect(await read()).toEqual(set.body);
  });
});
