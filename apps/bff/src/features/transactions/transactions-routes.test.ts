import { apiErrorBodySchema } from '@card-console/shared/api/error';
import { transactionPageSchema, transactionSchema } from '@card-console/shared/api/transactions';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestSession } from '../../test/harness';

let t: TestApp;
let finance: TestSession;
let subId: string;

beforeAll(async () => {
  t = await startTestApp({ sim: { transactions: 4_000 } });
  finance = await t.signIn('finance');
  subId = t.sim.data.subAccounts()[0]?.id ?? '';
});
afterAll(async () => t.close());
afterEach(() => {
  t.sim.faults.clear();
  t.sim.stats.reset();
});

describe('GET /api/transactions', () => {
  it('walks every page of a filter and gets exactly the upstream rows, in order', async () => {
    const all = t.sim.data.transactions(subId);
    const mid = all[Math.floor(all.length / 2)];
    const early = all[all.length - 1];
    if (!mid || !early) throw new Error('no data');
    const from = Date.parse(early.date);
    const to = Date.parse(mid.date);
    const expected = all.filter((x) => {
      const at = Date.parse(x.date);
      return x.status === 'settled' && at >= from && at <= to;
    });
    const ids: string[] = [];
    let cursor: string | undefined;
    do {
      const query: Record<string, string> = {
        subAccountId: subId,
        status: 'settled',
        from: String(from),
        to: String(to),
      };
      if (cursor) query.cursor = cursor;
      const res = await t.request.get('/api/transactions').query(query).set(finance.headers());
      expect(res.status).toBe(200);
      const page = transactionPageSchema.parse(res.body);
      ids.push(...page.items.map((x) => x.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(ids).toEqual(expected.map((x) => x.id));
    expect(ids.length).toBeGreaterThan(50);
  });

  it('filters by card', async () => {
    const withCard = t.sim.data.transactions(subId).find((x) => x.cardId);
    const res = await t.request
      .get('/api/transactions')
      .query({ subAccountId: subId, cardId: withCard?.cardId })
      .set(finance.headers());
    expect(res.status).toBe(200);
    expect(res.body.items.length).toBeGreaterThan(0);
    expect(res.body.items.every((x: { cardId?: string }) => x.cardId === withCard?.cardId)).toBe(
      true,
    );
  });

  it('maps upstream fields to the API shape and drops unknown ones', async () => {
    const res = await t.request
      .get('/api/transactions')
      .query({ subAccountId: subId })
      .set(finance.headers());
    const first = res.body.items[0];
    const upstream = t.sim.data.transaction(first.id);
    expect(transactionSchema.parse(first)).toMatchObject({
      id: upstream?.id,
      amountCents: upstream?.amountCents,
    });
    expect(first).not.toHaveProperty('subAccountId');
    expect(first).not.toHaveProperty('merchantData');
    if (upstream?.merchantData) {
      expect(first.merchant).toEqual({
        ...upstream.merchantData,
        categoryName: expect.stringMatching(/\w/),
      });
    }
  });

  it('needs a sub account, well-formed dates with from ≤ to, and known statuses', async () => {
    for (const query of [
      '',
      `subAccountId=${subId}&from=yesterday`,
      `subAccountId=${subId}&from=2000&to=1000`,
      `subAccountId=${subId}&status=lost`,
      `subAccountId=${subId}&subAccountId=${subId}`,
      `subAccountId=${subId}&cardId=..`,
      `subAccountId=${subId}&cardId=a%00b`,
    ]) {
      const res = await t.request.get(`/api/transactions?${query}`).set(finance.headers());
      expect(res.status, query).toBe(400);
      apiErrorBodySchema.parse(res.body);
    }
    expect(t.sim.stats.total()).toBe(0);
  });

  it('an unknown sub account is 404', async () => {
    const res = await t.request
      .get('/api/transactions')
      .query({ subAccountId: 'sub_nope' })
      .set(finance.headers());
    expect(res.status).toBe(404);
  });

  it('malformed upstream JSON is 502 upstream_invalid_response', async () => {
    t.sim.faults.enqueue({ kind: 'malformed' });
    const res = await t.request
      .get('/api/transactions')
      .query({ subAccountId: subId })
      .set(finance.headers());
    expect(res.status).toBe(502);
    expect(apiErrorBodySchema.parse(res.body).code).toBe('upstream_invalid_response');
  });

  it('when the upstream stays busy, the person gets 503 with Retry-After within the deadline', async () => {
    t.sim.faults.enqueue({ kind: 'status', status: 429, retryAfter: '30' });
    const started = Date.now();
    const res = await t.request
      .get('/api/transactions')
      .query({ subAccountId: subId })
      .set(finance.headers());
    expect(res.status).toBe(503);
    expect(apiErrorBodySchema.parse(res.body)).toMatchObject({
      code: 'upstream_unavailable',
      retryAfterSeconds: 30,
    });
    expect(res.headers['retry-after']).toBe('30');
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});

describe('GET /api/transactions/:id', () => {
  it('reads one transaction; unknown is 404', async () => {
    const id = t.sim.data.transactions(subId)[0]?.id ?? '';
    const res = await t.request.get(`/api/transactions/${id}`).set(finance.headers());
    expect(res.status).toBe(200);
    expect(transactionSchema.parse(res.body).id).toBe(id);
    const missing = await t.request.get('/api/transactions/txn_missing').set(finance.headers());
    expect(missing.status).toBe(404);
  });
});
