// The close policy over HTTP: everyone reads it, only admins set it, a body it cannot take is a
// 400 that names what is wrong, and every change (and every refused one) is audited with the
// policy before and after.
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
      body: { receiptFromCents: 7_500, memoCategoryIds: [] },
    });
    expect(await read(admin)).toEqual({ receiptFromCents: 7_500, memoCategoryIds: [] });
  });

  it('is set by an admin, read back by finance, and audited before → after', async () => {
    const software = await category('Software');
    const saved = await put(admin, { receiptFromCents: 10_000, memoCategoryIds: [software.id] });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(closePolicySchema.parse(saved.body)).toEqual({
      receiptFromCents: 10_000,
      memoCategoryIds: [software.id],
      updatedBy: t.credentials.admin.email,
      updatedAt: new Date(t.clock.now()).toISOString(),
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
    const none = await put(admin, { receiptFromCents: null, memoCategoryIds: [] });
    expect(none.status).toBe(200);
    expect(await read()).toMatchObject({ receiptFromCents: null, memoCategoryIds: [] });
    const [record] = await auditFor(none.headers['x-request-id']);
    expect(record).toMatchObject({
      before: { receiptFrom: '$100.00', memoCategories: [`${software.code} Software`] },
      after: { receiptFrom: 'none', memoCategories: [] },
    });
  });

  it('refuses finance (403), changing nothing, and records the refusal', async () => {
    const res = await put(finance, { receiptFromCents: 1, memoCategoryIds: [] });
    expect(res.status).toBe(403);
    expect(apiErrorBodySchema.parse(res.body).code).toBe('forbidden');
    expect(await read()).toEqual({ receiptFromCents: 7_500, memoCategoryIds: [] });
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
    const bodies: [unknown, string][] = [
      [{}, 'receiptFromCents'],
      [{ receiptFromCents: 7_500 }, 'memoCategoryIds'],
      [{ receiptFromCents: -1, memoCategoryIds: [] }, 'receiptFromCents'],
      [{ receiptFromCents: 75.5, memoCategoryIds: [] }, 'receiptFromCents'],
      [{ receiptFromCents: '7500', memoCategoryIds: [] }, 'receiptFromCents'],
      [{ receiptFromCents: 100_000_000_001, memoCategoryIds: [] }, 'receiptFromCents'],
      [{ receiptFromCents: 7_500, memoCategoryIds: [software.id, software.id] }, 'memoCategoryIds'],
      [{ receiptFromCents: 7_500, memoCategoryIds: ['..'] }, 'memoCategoryIds'],
      [
        {
          receiptFromCents: 7_500,
          memoCategoryIds: Array.from({ length: 201 }, (_, i) => `c${i}`),
        },
        'memoCategoryIds',
      ],
      [{ receiptFromCents: 7_500, memoCategoryIds: [], extra: true }, 'extra'],
    ];
    for (const [body, field] of bodies) {
      const res = await put(admin, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      const problem = apiErrorBodySchema.parse(res.body);
      expect(problem.code, JSON.stringify(body)).toBe('invalid_body');
      expect(problem.detail, JSON.stringify(body)).toContain(field);
    }
    expect(await read()).toEqual({ receiptFromCents: 7_500, memoCategoryIds: [] });
  });

  it('refuses a memo category that does not exist or is archived with 400 and a failed record', async () => {
    const current = await category('Travel');
    const old = await category('Old software', true);

    const archived = await put(admin, {
      receiptFromCents: 5_000,
      memoCategoryIds: [current.id, old.id],
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
    expect(await read()).toEqual({ receiptFromCents: 7_500, memoCategoryIds: [] });
  });
});
