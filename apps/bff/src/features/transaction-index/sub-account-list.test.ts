// The sub-account list kept for "all sub accounts" reads of the index: over real HTTP, such a
// read costs the card service nothing once the list is kept, and Refresh reads it again; the
// list itself is served as kept while a newer one is read, and kept when that read fails.
import type { UpstreamSubAccount } from '@card-console/shared/upstream/sub-account';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestSession } from '../../test/harness';
import { createSubAccountList } from './sub-account-list';

const sub = (id: string): UpstreamSubAccount =>
  ({ id, name: id, balance: { amountCents: 0, currency: 'USD' } }) as never;
const ctx = { requestId: 'test' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the kept sub-account list', () => {
  it('serves the kept list while a newer one is read, then the newer one', async () => {
    let version = 0;
    let reads = 0;
    const list = createSubAccountList(async () => {
      reads++;
      await sleep(20);
      return [sub(`v${++version}`)];
    }, 50);
    expect(await list.all(ctx)).toEqual([sub('v1')]);
    expect(await list.all(ctx)).toEqual([sub('v1')]);
    expect(reads).toBe(1);
    await sleep(60);
    // Past its age: the kept list at once, a new read behind it.
    expect(await list.all(ctx)).toEqual([sub('v1')]);
    await sleep(40);
    expect(await list.all(ctx)).toEqual([sub('v2')]);
    expect(reads).toBe(2);
    // Refresh reads now.
    expect(await list.all(ctx, { fresh: true })).toEqual([sub('v3')]);
  });

  it('keeps the list when a newer read fails; a first read that fails is the caller’s error', async () => {
    let fail = true;
    const list = createSubAccountList(async () => {
      if (fail) throw new Error('card service down');
      return [sub('a')];
    }, 30);
    await expect(list.all(ctx)).rejects.toThrow('card service down');
    fail = false;
    expect(await list.all(ctx)).toEqual([sub('a')]);
    fail = true;
    await sleep(40);
    expect(await list.all(ctx)).toEqual([sub('a')]);
    await sleep(10);
    expect(await list.all(ctx)).toEqual([sub('a')]);
  });

  it('an age of 0 reads on every request', async () => {
    let reads = 0;
    const list = createSubAccountList(async () => [sub(`r${++reads}`)], 0);
    await list.all(ctx);
    await list.all(ctx);
    expect(reads).toBe(2);
  });
});

describe('"all sub accounts" reads of the index, over HTTP', () => {
  let t: TestApp;
  let finance: TestSession;
  beforeAll(async () => {
    t = await startTestApp({
      sim: { transactions: 500, subAccounts: 2 },
      recordSimRequests: true,
    });
    finance = await t.signIn('finance');
  }, 60_000);
  afterAll(async () => t?.close());

  const listReads = () =>
    t.simRequests.filter((r) => r.method === 'GET' && r.url.startsWith('/sub-account')).length;

  it('cost no upstream call once the list is kept; Refresh reads it again', async () => {
    const first = await t.request.get('/api/index/transactions').set(finance.headers());
    expect(first.status).toBe(200);
    const afterFirst = listReads();
    expect(afterFirst).toBeGreaterThan(0);
    for (const path of [
      '/api/index/transactions?status=declined',
      '/api/index/transactions/totals?by=card',
      '/api/index/card-sub-accounts',
    ]) {
      const res = await t.request.get(path).set(finance.headers());
      expect(res.status, path).toBe(200);
    }
    expect(listReads()).toBe(afterFirst);
    const refreshed = await t.request
      .get('/api/index/transactions?refresh=1')
      .set(finance.headers());
    expect(refreshed.status).toBe(200);
    expect(listReads()).toBeGreaterThan(afterFirst);
  });
});
