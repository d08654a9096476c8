// Every walk ends, over real HTTP, against a card service whose lists never end (each page
// names a cursor never seen before): the Overview, creating a sub account, a limit preview and
// the CSV export each end with a clear error within their page cap or time budget, where such
// a service once had the Overview give no answer in 30 s, a create take over 20 s and exports
// never end.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { STALE_PAGES } from '../platform/pagination/paginate';
import { parseCsv } from '../test/csv';
import { ManualClock, startTestApp, type TestApp, type TestSession } from '../test/harness';
import { unreachableIndex } from '../test/unreachable-index';
import { WALK_LIMITS } from './walk-limits';

const NOW = Date.UTC(2026, 10, 20, 15);
const API_KEY = 'endless-lists-test-key';

interface Endless {
  subAccounts: boolean;
  transactions: boolean;
  /**
   * How the transaction list misbehaves within the contract's letter, if it does: `same-rows`,
   * a fresh cursor on every page to the same 50 rows; `repeat-cursor`, a first page of rows
   * whose next cursor, once followed, names itself again; `ignores-dates`, 600 rows over six
   * and a half years (past the index's two) whatever dates are asked for (cursors honest).
   */
  misbehaves?: 'same-rows' | 'repeat-cursor' | 'ignores-dates' | undefined;
}

const DAY = 86_400_000;

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
      const misbehaving = misbehavingPage(endless.misbehaves, url);
      if (misbehaving) return send(200, misbehaving);
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

/** A page of a transaction list that misbehaves as `how` says (see `Endless`). */
function misbehavingPage(how: Endless['misbehaves'], url: URL) {
  if (!how) return undefined;
  const from = Number(url.searchParams.get('from_date') ?? 0);
  const to = Math.min(Number(url.searchParams.get('to_date') ?? NOW), NOW);
  const cursor = url.searchParams.get('cursor');
  const row = (id: string, at: number) => ({
    id,
    date: new Date(at).toISOString(),
    description: 'Coffee',
    amountCents: -450,
    status: 'settled',
    referenceNumber: `ref-${id}`,
    cardId: 'card_1',
  });
  if (how === 'same-rows') {
    // Within the dates asked for, as the contract wants; the same rows behind every cursor.
    const items = Array.from({ length: 50 }, (_, i) =>
      row(`txn_same_${i}`, Math.max(from, to - i)),
    );
    return { items, metadata: { nextCursor: `fresh-${Math.random().toString(36).slice(2)}` } };
  }
  if (how === 'repeat-cursor') {
    const items = Array.from({ length: 50 }, (_, i) =>
      row(`txn_${cursor ?? 'first'}_${i}`, Math.max(from, to - i)),
    );
    return { items, metadata: { nextCursor: 'the-same-cursor' } };
  }
  // Ignores the dates: 600 rows, one every 4 days back from NOW, paged honestly.
  const at = Number(cursor ?? 0);
  const items = Array.from({ length: Math.max(0, Math.min(50, 600 - at)) }, (_, i) =>
    row(`txn_all_${at + i}`, NOW - (at + i) * 4 * DAY),
  );
  return { items, metadata: at + 50 < 600 ? { nextCursor: String(at + 50) } : {} };
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

    it('the CSV export ends with a row saying it is incomplete once its time budget has passed, and logs why', async () => {
      service.endless.transactions = true;
      const before = service.served.transactions;
      const res = await fetch(`${t.url}/api/transactions/export.csv?subAccountId=sa_only`, {
        headers: admin.headers(),
      });
      expect(res.status).toBe(200);
      const reader = res.body?.getReader();
      if (!reader) throw new Error('no body');
      let advanced = false;
      let text = '';
      const decoder = new TextDecoder();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
        if (!advanced && service.served.transactions - before >= 20) {
          advanced = true;
          t.clock.advance(WALK_LIMITS.export.timeMs);
        }
      }
      expect(advanced).toBe(true);
      const last = parseCsv(text).at(-1)?.[0] ?? '';
      expect(last).toMatch(
        /^INCOMPLETE: this file stops after [\d,]+ rows\. Reading transactions for the export from the card service took longer than 30 minutes, so it was stopped\./,
      );
      await until(() => t.logs.some((l) => l.includes('csv export failed')));
      const line = t.logs.find((l) => l.includes('csv export failed')) ?? '';
      expect(JSON.parse(line)).toMatchObject({ code: 'upstream_timeout' });
      const atEnd = service.served.transactions;
      await sleep(50);
      expect(service.served.transactions).toBe(atEnd);
    });
  });
});

describe('walks against a card service that misbehaves within its contract', () => {
  let service: Awaited<ReturnType<typeof startEndlessService>>;
  let t: TestApp;
  let admin: TestSession;

  beforeAll(async () => {
    service = await startEndlessService();
    // The index on its own engine (the embedded one), the Overview and the export: every walk.
    t = await startTestApp({
      upstream: { url: service.url, apiKey: API_KEY },
      clock: new ManualClock(NOW),
    });
    admin = await t.signIn('admin');
  });
  afterAll(async () => {
    await t?.close();
    await service?.close();
  });
  afterEach(() => {
    service.endless.misbehaves = undefined;
  });

  const nothingNew = (what: string) =>
    `The card service sent ${STALE_PAGES} pages in a row with nothing new while listing ${what}, so Card Console stopped reading.`;
  const outsideDates =
    /^The card service sent \d+ transactions dated outside the dates asked for, so Card Console stopped reading: it is not filtering by date\.$/;

  it.each([
    [
      'a fresh cursor to the same rows, for ever',
      'same-rows' as const,
      nothingNew('transactions for the index'),
      nothingNew('transactions for the Overview'),
      nothingNew('transactions for the export'),
    ],
    [
      'a cursor repeated',
      'repeat-cursor' as const,
      'The card service repeated a page.',
      'The card service repeated a page.',
      'The card service repeated a page.',
    ],
    [
      'the dates asked for ignored',
      'ignores-dates' as const,
      outsideDates,
      outsideDates,
      outsideDates,
    ],
  ])(
    '%s: the index sync, the Overview and the export each end within 60 s saying why, and reads that follow do not walk again',
    async (_, how, forIndex, forOverview, forExport) => {
      service.endless.misbehaves = how;
      // Past the failure memories of an earlier case (every walk starts afresh), signed in again.
      t.clock.advance(60 * 60_000);
      admin = await t.signIn('admin');
      const started = performance.now();
      const reason = (text: string | undefined, want: string | RegExp) =>
        typeof want === 'string' ? expect(text).toBe(want) : expect(text).toMatch(want);

      // The index sync: its freshness says it failed, and why.
      const index = () => t.request.get('/api/index/transactions').set(admin.headers()).expect(200);
      let listed = (await index()).body;
      while (listed.freshness.syncing && performance.now() - started < 60_000) {
        await sleep(20);
        listed = (await index()).body;
      }
      reason(listed.freshness.failed?.reason, forIndex);

      // The Overview: failed, saying why.
      const overview = () =>
        t.request
          .get('/api/overview')
          .query({ from: '2026-10-01', to: '2026-10-31', tz: 'UTC' })
          .set(admin.headers())
          .expect(200);
      let shown = (await overview()).body;
      while (shown.status === 'computing' && performance.now() - started < 60_000) {
        await sleep(20);
        shown = (await overview()).body;
      }
      expect(shown.status).toBe('failed');
      reason(shown.error, forOverview);

      // The export of October from the card service: its last row says it is incomplete, and why.
      const october = `from=${Date.UTC(2026, 9, 1)}&to=${Date.UTC(2026, 10, 1) - 1}`;
      const file = await fetch(
        `${t.url}/api/transactions/export.csv?subAccountId=sa_only&${october}`,
        { headers: admin.headers() },
      );
      expect(file.status).toBe(200);
      const last = parseCsv(await file.text()).at(-1)?.[0] ?? '';
      const why =
        /^INCOMPLETE: this file stops after [\d,]+ rows?\. (.+) Export again for the whole file\.$/.exec(
          last,
        )?.[1];
      reason(why, forExport);
      expect(performance.now() - started).toBeLessThan(60_000);

      // Reads within the failures' memory join them: the card service is not walked again.
      const walked = service.served.transactions;
      for (let i = 0; i < 5; i++) {
        expect((await index()).body.freshness.failed).toBeDefined();
        expect((await overview()).body.status).toBe('failed');
      }
      expect(service.served.transactions).toBe(walked);
    },
    90_000,
  );
});
