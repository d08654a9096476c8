// Every walk ends, over real HTTP, against a card service whose lists never end (each page
// names a cursor never seen before): the Overview, creating a sub account, a limit preview and
// the CSV export each end with a clear error within their page cap or time budget, where such
// a service once had the Overview give no answer in 30 s, a create take over 20 s and exports
// never end.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, startTestApp, type TestApp, type TestSession } from '../test/harness';
import { unreachableIndex } from '../test/unreachable-index';
import { WALK_LIMITS } from './walk-limits';

const NOW = Date.UTC(2026, 10, 20, 15);
const API_KEY = 'endless-lists-test-key';

interface Endless {
  subAccounts: boolean;
  transactions: boolean;
}

/**
 * A card service with one card and, by `endless`, a sub-account list and transaction lists
 * that go on for ever: 25 sub accounts or 50 transactions (one a minute, newest first from
 * `to_date`) a page, and always a fresh next cursor. Counts the pages it served per list.
 */
async function startEndlessService() {
  const endless: Endless = { subAccounts: false, transactions: false };
  const served = { subAccounts: 0, transactions: 0, posts: 0 };
  const card = { id: 'card_1', last4: '4242', name: 'Travel', status: 'active' };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://card-service.invalid');
    const send = (status: number, body: unknown) => {
      const text = JSON.stringify(body);
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(text);
    };
    if (req.headers['x-api-key'] !== API_KEY) return send(403, { message: 'wrong key' });
    const at = Number(url.searchParams.get('cursor')?.slice(1) ?? 0);
    if (req.method === 'GET' && url.pathname === '/sub-account') {
      served.subAccounts += 1;
      if (!endless.subAccounts) {
        return send(200, { items: [{ id: 'sa_only', name: 'Operations' }], metadata: {} });
      }
      const items = Array.from({ length: 25 }, (_, i) => ({
        id: `sa_${at + i}`,
        name: `Sub account ${at + i}`,
      }));
      return send(200, { items, metadata: { nextCursor: `s${at + 25}` } });
    }
    if (req.method === 'POST' && url.pathname === '/sub-account') {
      served.posts += 1;
      return send(201, { id: 'sa_new', name: 'New' });
    }
    if (req.method === 'GET' && url.pathname === '/card') {
      return send(200, { items: [card], metadata: {} });
    }
    if (req.method === 'GET' && url.pathname === '/card/card_1') return send(200, card);
    if (req.method === 'GET' && url.pathname === '/transaction') {
      served.transactions += 1;
      const top = Math.min(Number(url.searchParams.get('to_date') ?? NOW), NOW);
      const items = Array.from({ length: endless.transactions ? 50 : 1 }, (_, i) => ({
        id: `txn_${at + i}`,
        date: new Date(top - (at + i) * 60_000).toISOString(),
        description: 'Coffee',
        amountCents: -450,
        status: 'settled',
        referenceNumber: `ref${at + i}`,
        cardId: 'card_1',
      }));
      return send(200, {
        items,
        metadata: endless.transactions ? { nextCursor: `t${at + 50}` } : {},
      });
    }
    return send(404, { message: 'not here' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    endless,
    served,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Resolves once `check` holds, looking every few milliseconds. */
async function until(check: () => boolean) {
  for (let i = 0; i < 2_000 && !check(); i++) await sleep(5);
  expect(check()).toBe(true);
}

describe('walks against a card service whose lists never end', () => {
  let service: Awaited<ReturnType<typeof startEndlessService>>;
  let t: TestApp;
  let admin: TestSession;

  beforeAll(async () => {
    service = await startEndlessService();
    t = await startTestApp({
      upstream: { url: service.url, apiKey: API_KEY },
      clock: new ManualClock(NOW),
      // The Overview's own walk (the index's sync has its own budget: index-sync.test.ts).
      stores: unreachableIndex(),
    });
    admin = await t.signIn('admin');
  });
  afterAll(async () => {
    await t?.close();
    await service?.close();
  });
  afterEach(() => {
    service.endless.subAccounts = false;
    service.endless.transactions = false;
  });

  const cap = WALK_LIMITS.subAccounts.maxPages;
  const pastCap = `past ${cap} pages`;

  describe('an endless sub-account list', () => {
    it('the Overview is a 502 that says so, after the page cap', async () => {
      service.endless.subAccounts = true;
      const before = service.served.subAccounts;
      const res = await t.request
        .get('/api/overview')
        .query({ from: '2026-11-01', to: '2026-11-20', tz: 'UTC' })
        .set(admin.headers());
      expect(res.status).toBe(502);
      expect(res.body.code).toBe('upstream_bad_gateway');
      expect(JSON.stringify(res.body)).toContain(pastCap);
      expect(service.served.subAccounts - before).toBe(cap);
    });

    it('creating a sub account is refused with that error, audited, and nothing is created', async () => {
      service.endless.subAccounts = true;
      const before = service.served.subAccounts;
      const res = await t.request
        .post('/api/sub-accounts')
        .set(admin.headers())
        .send({ name: 'Field Ops' });
      expect(res.status).toBe(502);
      expect(res.body.code).toBe('upstream_bad_gateway');
      expect(JSON.stringify(res.body)).toContain(pastCap);
      expect(service.served.subAccounts - before).toBe(cap);
      expect(service.served.posts).toBe(0);
      const records = (await t.audit.list({ limit: 10 })).items.filter(
        (r) => r.requestId === res.headers['x-request-id'],
      );
      expect(records).toMatchObject([
        {
          action: 'subAccount.create',
          outcome: 'failed',
          detail: expect.stringContaining('upstream_bad_gateway'),
        },
      ]);
    });

    it('a limit preview is a 502 that says so, after the page cap', async () => {
      service.endless.subAccounts = true;
      const res = await t.request.get('/api/cards/card_1/limit-impact').set(admin.headers());
      expect(res.status).toBe(502);
      expect(res.body.code).toBe('upstream_bad_gateway');
      expect(JSON.stringify(res.body)).toContain(pastCap);
    });
  });

  describe('endless transaction lists', () => {
    it('a limit preview is a 504 once its time budget has passed', async () => {
      service.endless.transactions = true;
      const before = service.served.transactions;
      const answer = t.request.get('/api/cards/card_1/limit-impact').set(admin.headers()).then();
      await until(() => service.served.transactions - before >= 20);
      t.clock.advance(WALK_LIMITS.limitPreview.timeMs);
      const res = await answer;
      expect(res.status).toBe(504);
      expect(res.body.code).toBe('upstream_timeout');
      expect(JSON.stringify(res.body)).toContain('took longer than 30 s');
      // It stops there: no more pages are asked for.
      const atEnd = service.served.transactions;
      await sleep(50);
      expect(service.served.transactions).toBe(atEnd);
    });

    it('the Overview answers failed, saying why, once its time budget has passed', async () => {
      service.endless.transactions = true;
      const query = { from: '2026-10-01', to: '2026-10-31', tz: 'UTC' };
      const ask = () => t.request.get('/api/overview').query(query).set(admin.headers());
      const before = service.served.transactions;
      const first = await ask();
      expect(first.status).toBe(200);
      expect(first.body.status).toBe('computing');
      await until(() => service.served.transactions - before >= 20);
      t.clock.advance(WALK_LIMITS.overview.timeMs);
      let body = first.body;
      for (let i = 0; i < 400 && body.status === 'computing'; i++) {
        await sleep(5);
        body = (await ask()).body;
      }
      expect(body.status).toBe('failed');
      expect(body.error).toContain('took longer than 10 minutes');
      const atEnd = service.served.transactions;
      await sleep(50);
      expect(service.served.transactions).toBe(atEnd);
    });

    it('the CSV export breaks off once its time budget has passed, and logs why', async () => {
      service.endless.transactions = true;
      const before = service.served.transactions;
      const res = await fetch(`${t.url}/api/transactions/export.csv?subAccountId=sa_only`, {
        headers: admin.headers(),
      });
      expect(res.status).toBe(200);
      const reader = res.body?.getReader();
      if (!reader) throw new Error('no body');
      let advanced = false;
      let failure: unknown;
      try {
        for (;;) {
          const { done } = await reader.read();
          if (done) break;
          if (!advanced && service.served.transactions - before >= 20) {
            advanced = true;
            t.clock.advance(WALK_LIMITS.export.timeMs);
          }
        }
      } catch (error) {
        failure = error;
      }
      // Broken off, never ended as if whole.
      expect(advanced).toBe(true);
      expect(failure).toBeDefined();
      await until(() => t.logs.some((l) => l.includes('csv export failed')));
      const line = t.logs.find((l) => l.includes('csv export failed')) ?? '';
      expect(JSON.parse(line)).toMatchObject({ code: 'upstream_timeout' });
      const atEnd = service.served.transactions;
      await sleep(50);
      expect(service.served.transactions).toBe(atEnd);
    });
  });
});
