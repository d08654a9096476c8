// A browser's Cancel never costs an export slot, over real HTTP, for every kind of export
// (transactions CSV, the index's CSV in its three formats, the receipts ZIP, the audit CSV),
// with the slots in memory and in PostgreSQL: a person cancels two downloads while the server is
// still waiting on a slow store or card service for them, and can at once start exports again,
// up to the cap and no further.
import http from 'node:http';
import { apiErrorBodySchema } from '@card-console/shared/api/error';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { downloadWhole } from '../../test/csv';
import { testDatabase } from '../../test/engines/postgres';
import { startTestApp, type TestApp, type TestSession } from '../../test/harness';
import { settledIndexList, settledIndexTotals } from '../../test/settled-index';

/**
 * A method of the app's stores or card-service client made slow at will: once `hold` is
 * called, calls past the passes given wait until `open`. A held call still runs afterwards.
 */
function slowable<T extends object>(target: T, method: keyof T & string) {
  const original = (target[method] as (...args: unknown[]) => Promise<unknown>).bind(target);
  let passes = Number.POSITIVE_INFINITY;
  let opened: Promise<void> = Promise.resolve();
  let open = () => {};
  let waiting = 0;
  vi.spyOn(target, method as never).mockImplementation((async (...args: unknown[]) => {
    if (passes > 0) passes--;
    else {
      waiting++;
      await opened;
      waiting--;
    }
    return original(...args);
  }) as never);
  return {
    hold() {
      passes = 0;
      opened = new Promise((resolve) => {
        open = resolve;
      });
    },
    /** Lets `n` more calls through while held (a download's first page or file). */
    pass(n: number) {
      passes += n;
    },
    open() {
      passes = Number.POSITIVE_INFINITY;
      open();
    },
    waiting: () => waiting,
  };
}

type Slowable = ReturnType<typeof slowable>;

interface ExportKind {
  name: string;
  path: () => string;
  session: () => TestSession;
  slow: () => Slowable;
  /** Calls of the slow method a download makes before its first byte and one more. */
  passes: number;
}

/** A download started and left unread; `cancel` is the browser's Cancel. */
interface Started {
  status: number;
  body: string;
  cancel(): void;
  readToEnd(): Promise<{ complete: boolean; text: string }>;
}

function start(t: TestApp, kind: ExportKind): Promise<Started> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${t.url}${kind.path()}`, {
      headers: kind.session().headers(),
      agent: false,
    });
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let complete = false;
      const ended = new Promise<void>((done) => {
        res.on('end', () => {
          complete = res.complete;
        });
        res.on('close', done);
        res.on('error', () => done());
      });
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      // A refusal is read whole; a download is left as the first bytes came.
      if (res.statusCode !== 200) {
        ended.then(() =>
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).toString('utf8'),
            cancel: () => {},
            readToEnd: async () => ({ complete, text: '' }),
          }),
        );
        return;
      }
      res.once('data', () => {
        res.pause();
        resolve({
          status: 200,
          body: '',
          cancel: () => req.destroy(),
          readToEnd: async () => {
            res.resume();
            await ended;
            return { complete, text: Buffer.concat(chunks).toString('utf8') };
          },
        });
      });
    });
  });
}

/** Starts a download of `kind` once a slot is free (the server learns of a cancel a moment later). */
async function startWhenFree(t: TestApp, kind: ExportKind): Promise<Started> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    kind.slow().pass(kind.passes);
    const got = await start(t, kind);
    if (got.status !== 429 || Date.now() > deadline) return got;
    kind.slow().pass(-kind.passes);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function expectBusy(got: Started) {
  expect(got.status).toBe(429);
  expect(apiErrorBodySchema.parse(JSON.parse(got.body)).code).toBe('export_busy');
}

describe.each([{ store: 'memory' as const }, { store: 'PostgreSQL' as const }])(
  'a cancelled export gives its slot back at once ($store)',
  ({ store }) => {
    let database: Awaited<ReturnType<typeof testDatabase>> | undefined;
    let t: TestApp;
    let finance: TestSession;
    let admin: TestSession;
    let subId = '';
    const slow: Record<string, Slowable> = {};

    beforeAll(async () => {
      if (store === 'PostgreSQL') database = await testDatabase();
      t = await startTestApp({
        sim: { transactions: 5_000, subAccounts: 2, rateLimit: false },
        env: {
          exportCaps: { perPerson: 2, total: 8 },
          rateLimits: { uploadsPerMinute: 1_000 },
        },
        ...(database ? { shared: { databaseUrl: database.url } } : {}),
      });
      finance = await t.signIn('finance');
      admin = await t.signIn('admin');
      subId = t.sim.data.subAccounts()[0]?.id ?? '';

      // The index holds more than a page of an export (2,000 rows), receipts on three rows.
      const list = await settledIndexList(t, finance, '?limit=200');
      expect((await settledIndexTotals(t, finance)).summary.count).toBeGreaterThan(2_000);
      const rows = list.items.filter((x) => x.notes === undefined).slice(0, 3);
      await t.request
        .post('/api/transactions/notes')
        .set(finance.headers())
        .send({
          items: rows.map((x) => ({ subAccountId: x.subAccountId, id: x.id })),
          addTags: ['c'],
        })
        .expect(200);
      for (const row of rows) {
        await t.request
          .post(`/api/transactions/${encodeURIComponent(row.id)}/receipts`)
          .set(finance.headers())
          .set('content-type', 'application/octet-stream')
          .send(Buffer.from('%PDF-1.7\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n'))
          .expect(201);
      }
      // More than a page of the audit export (500 records).
      for (let i = 0; i < 520; i++) {
        await t.audit.append({
          actor: 'x@example.test',
          action: 'card.update',
          outcome: 'success',
          requestId: `r${i}`,
        });
      }

      slow.upstream = slowable(t.upstream, 'listTransactionsDeferred');
      slow.index = slowable(await t.stores.index(), 'page');
      slow.receipts = slowable(await t.stores.notes(), 'receiptFile');
      slow.audit = slowable(t.audit, 'list');
    }, 120_000);

    afterAll(async () => {
      await t?.close();
      await database?.stop();
    });

    const kinds: ExportKind[] = [
      {
        name: 'transactions CSV',
        path: () => `/api/transactions/export.csv?subAccountId=${subId}`,
        session: () => finance,
        slow: () => slow.upstream as Slowable,
        passes: 1,
      },
      ...(['card-console', 'quickbooks', 'xero'] as const).map((format) => ({
        name: `index CSV (${format})`,
        path: () => `/api/index/transactions/export.csv?format=${format}&tz=UTC`,
        session: () => finance,
        slow: () => slow.index as Slowable,
        passes: 1,
      })),
      {
        name: 'receipts ZIP',
        path: () => '/api/index/transactions/receipts.zip?tag=c&tz=UTC',
        session: () => finance,
        slow: () => slow.receipts as Slowable,
        passes: 1,
      },
      {
        name: 'audit CSV',
        path: () => '/api/audit/export.csv?tz=UTC',
        session: () => admin,
        slow: () => slow.audit as Slowable,
        passes: 1,
      },
    ];

    it.each(kinds)(
      '$name: two cancelled mid-download, the person starts two more at once, and no third',
      async (kind) => {
        const source = kind.slow();
        source.hold();
        try {
          // Two downloads under way, each waiting on the slow source for what comes next.
          const cancelled = [await startWhenFree(t, kind), await startWhenFree(t, kind)];
          expect(cancelled.map((d) => d.status)).toEqual([200, 200]);
          await vi.waitFor(() => expect(source.waiting()).toBeGreaterThanOrEqual(2));
          expectBusy(await start(t, kind));

          for (const download of cancelled) download.cancel();
          // The cancelled exports still wait on the source; their slots are free regardless.
          const again = [await startWhenFree(t, kind), await startWhenFree(t, kind)];
          expect(again.map((d) => d.status)).toEqual([200, 200]);
          expect(source.waiting()).toBeGreaterThanOrEqual(2);
          expectBusy(await start(t, kind));

          source.open();
          for (const download of again) expect((await download.readToEnd()).complete).toBe(true);
        } finally {
          source.open();
        }
        // Everything has ended: the cap is whole again, no slot lost nor given twice.
        const both = await Promise.all([
          downloadWhole(`${t.url}${kind.path()}`, kind.session().headers()),
          downloadWhole(`${t.url}${kind.path()}`, kind.session().headers()),
        ]);
        expect(both.map((d) => [d.status, d.complete])).toEqual([
          [200, true],
          [200, true],
        ]);
      },
      60_000,
    );
  },
);

describe('an export past its lifetime', () => {
  let t: TestApp;
  let finance: TestSession;

  beforeAll(async () => {
    t = await startTestApp({
      sim: { transactions: 2_000, subAccounts: 1, rateLimit: false },
      env: { exportCaps: { perPerson: 1, total: 8, lifetimeMs: 1_000 } },
    });
    finance = await t.signIn('finance');
  });
  afterAll(async () => t?.close());

  it('is broken off, never ended as if whole, and its slot is free again', async () => {
    const upstream = slowable(t.upstream, 'listTransactionsDeferred');
    const kind: ExportKind = {
      name: 'transactions CSV',
      path: () =>
        `/api/transactions/export.csv?subAccountId=${t.sim.data.subAccounts()[0]?.id ?? ''}`,
      session: () => finance,
      slow: () => upstream,
      passes: 1,
    };
    upstream.hold();
    try {
      const started = Date.now();
      const stuck = await startWhenFree(t, kind);
      expect(stuck.status).toBe(200);
      expectBusy(await start(t, kind));
      // Nothing more comes from the card service: the lifetime ends the download.
      expect((await stuck.readToEnd()).complete).toBe(false);
      expect(Date.now() - started).toBeGreaterThanOrEqual(900);
      expect(t.logs.some((line) => line.includes('held its export slot for the longest'))).toBe(
        true,
      );
      // Its slot is free at once, though the cut export still waits on the card service.
      const again = await startWhenFree(t, kind);
      expect(again.status).toBe(200);
      again.cancel();
    } finally {
      upstream.open();
    }
    const next = await downloadWhole(`${t.url}${kind.path()}`, finance.headers());
    expect([next.status, next.complete]).toEqual([200, true]);
  }, 30_000);
});
