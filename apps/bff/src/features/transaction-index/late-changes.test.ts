// A payment's status changing after its day is final, over HTTP on both engines, against a card
// service that follows the contract: a returned, reversed or disputed payment is the same row
// with a new status (docs/money.md), so the index must read a final day again when one of its
// rows changes. The late-change sweep lists those statuses at most once an interval per sub
// account (`LATE_CHANGE_SWEEP_MS`) and walks the days they changed; days holding a dispute are
// walked again by each sweep. The figures expected below are docs/money.md's table by hand.
import { randomBytes } from 'node:crypto';
import { overviewSchema } from '@card-console/shared/api/overview';
import {
  indexPageSchema,
  indexTotalsAnswerSchema,
} from '@card-console/shared/api/transaction-index';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresEngine } from '../../platform/sql/sql-engine';
import { openStores } from '../../stores';
import { silentLogger } from '../../test/audit-cluster';
import type { ContractWorld } from '../../test/contract-answers';
import {
  type ContractCardService,
  startContractCardService,
} from '../../test/contract-card-service';
import { parseCsv } from '../../test/csv';
import { migratedMemoryEngine } from '../../test/engines/embedded';
import { type PostgresEngine, startPostgres } from '../../test/engines/postgres';
import { ManualClock, startTestApp, type TestApp, type TestSession } from '../../test/harness';
import { settledAnswer } from '../../test/settled-index';
import { LATE_CHANGE_SWEEP_MS } from './index-sync';

const NOW = Date.UTC(2026, 10, 20, 15);
const DAY = 86_400_000;
const MINUTE = 60_000;

interface Row {
  id: string;
  status: string;
  amountCents: number;
  daysAgo: number;
  card: boolean;
}

/** The card service's rows: an ACH payment and a disputed charge on final days, and a recent charge. */
const opening: Row[] = [
  { id: 'ach-supplier', status: 'settled', amountCents: -5_000_00, daysAgo: 10, card: false },
  { id: 'disputed-dinner', status: 'dispute', amountCents: -80_00, daysAgo: 12, card: true },
  { id: 'coffee', status: 'settled', amountCents: -4_50, daysAgo: 0, card: true },
];

function world(rows: Row[]): ContractWorld {
  return {
    subAccounts: [{ id: 'sub_1', name: 'Operating' }],
    cards: [{ id: 'card_1', last4: '4242', name: 'Travel', status: 'active' }],
    transactions: rows.map((r) => ({
      subAccountId: 'sub_1',
      item: {
        id: r.id,
        date: new Date(NOW - r.daysAgo * DAY - 3_600_000).toISOString(),
        description: r.card ? `Purchase ${r.id}` : `ACH ${r.id}`,
        amountCents: r.amountCents,
        status: r.status,
        referenceNumber: `ref ${r.id}`,
        ...(r.card
          ? { cardId: 'card_1', merchantData: { description: 'Shop', categoryCode: '5812' } }
          : {}),
      },
    })),
    pageSize: { subAccounts: 5, cards: 5, transactions: 50 },
    cursors: ['next'],
    withCount: false,
  };
}

let service: ContractCardService;
let postgres: PostgresEngine;
beforeAll(async () => {
  [service, postgres] = await Promise.all([
    startContractCardService('late-changes-key'),
    startPostgres(),
  ]);
}, 120_000);
afterAll(async () => {
  await service?.close();
  await postgres?.destroy();
});

const engines = {
  embedded: async () => migratedMemoryEngine(),
  postgres: async () =>
    postgresEngine(
      new pg.Pool({ connectionString: await postgres.createDatabase('late_changes'), max: 4 }),
    ),
};

/** The requests of the card service's list by status (the sweep's), since `from`. */
const statusLists = (from: number) =>
  service.received
    .slice(from)
    .filter((r) => r.url.startsWith('/transaction?') && /[?&]status=/.test(r.url));

for (const engine of Object.keys(engines) as (keyof typeof engines)[]) {
  describe(`late status changes on the ${engine} engine`, () => {
    let t: TestApp;
    let finance: TestSession;
    let clock: ManualClock;
    /** The card service's requests before this app's. */
    let start = 0;
    beforeAll(async () => {
      service.setWorld(world(opening));
      start = service.received.length;
      clock = new ManualClock(NOW);
      t = await startTestApp({
        upstream: { url: service.url, apiKey: service.apiKey },
        clock,
        env: { sessionSecret: randomBytes(32).toString('hex') },
        stores: openStores({ open: engines[engine], logger: silentLogger }),
      });
      finance = await t.signIn('finance');
    }, 60_000);
    afterAll(async () => t?.close());

    const period = () => `from=${NOW - 30 * DAY}&to=${clock.now() + DAY}`;
    const totals = (query = '') =>
      settledAnswer(t, finance, `/api/index/transactions/totals?${period()}${query}`, (b) =>
        indexTotalsAnswerSchema.parse(b),
      );
    const list = () =>
      settledAnswer(t, finance, `/api/index/transactions?${period()}`, (b) =>
        indexPageSchema.parse(b),
      );
    /** QuickBooks' bank upload of the sub account: its rows' descriptions and amounts. */
    async function quickbooks() {
      const res = await t.request
        .get(`/api/index/transactions/export.csv?subAccountId=sub_1&format=quickbooks`)
        .set(finance.headers());
      expect(res.status, res.text).toBe(200);
      const [, ...rows] = parseCsv(res.text).filter((r) => r.length > 1);
      return rows.map((r) => [r[1], r[2]]);
    }
    /** The Overview's figures of the last 30 days (read from the index once it holds them). */
    async function overview() {
      const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
      const res = await t.request
        .get(`/api/overview?from=${day(clock.now() - 29 * DAY)}&to=${day(clock.now())}&tz=UTC`)
        .set(finance.headers());
      expect(res.status, res.text).toBe(200);
      const body = overviewSchema.parse(res.body);
      expect(body.status).toBe('complete');
      return body.totals.money;
    }
    /** Time passes (the session signed in again: it idles out in 15 minutes). */
    async function later(ms: number) {
      clock.advance(ms);
      finance = await t.signIn('finance');
    }

    it('a payment returned 10 days after it settled, and a dispute resolved back to settled, reach the figures and the books', async () => {
      const before = await totals();
      expect(before.summary.buckets.payment).toMatchObject({ count: 1, cents: -5_000_00 });
      expect(before.summary.buckets.returned).toMatchObject({ count: 0, cents: 0 });
      expect(before.summary.posted).toEqual({ count: 3, cents: -5_000_00 - 80_00 - 4_50 });
      expect(await quickbooks()).toContainEqual(['ACH ach-supplier', '-5000.00']);
      expect((await overview()).payment).toMatchObject({ count: 1, cents: -5_000_00 });
      expect(statusLists(start)).toEqual([]);

      // The service returns the payment and resolves the dispute for the merchant: the same
      // rows with new statuses, their days long final.
      service.setWorld(
        world(
          opening.map((r) =>
            r.id === 'ach-supplier'
              ? { ...r, status: 'returned' }
              : r.id === 'disputed-dinner'
                ? { ...r, status: 'settled' }
                : r,
          ),
        ),
      );
      const asked = service.received.length;
      await later(LATE_CHANGE_SWEEP_MS + MINUTE);
      const after = await totals();
      // Returned: no money moved. Never Other payments, never posted, never in a file.
      expect(after.summary.buckets.payment).toMatchObject({ count: 0, cents: 0 });
      expect(after.summary.buckets.returned).toMatchObject({ count: 1, cents: -5_000_00 });
      expect(after.summary.posted).toEqual({ count: 2, cents: -80_00 - 4_50 });
      // Found by the sweep's lists by status, one walk each.
      expect(
        statusLists(asked)
          .map((r) => new URLSearchParams(r.url.split('?')[1]).get('status'))
          .sort(),
      ).toEqual(['dispute', 'returned', 'reversed']);
      const money = await overview();
      expect(money.payment).toMatchObject({ count: 0, cents: 0 });
      expect(money.returned).toMatchObject({ count: 1, cents: -5_000_00 });
      const books = await quickbooks();
      expect(books.map(([description]) => description)).not.toContain('ACH ach-supplier');
      expect(books.map(([, amount]) => amount)).not.toContain('-5000.00');
      // The dispute is settled now, in the list and by status.
      const rows = await list();
      expect(rows.items.find((r) => r.id === 'disputed-dinner')?.status).toBe('settled');
      expect(rows.items.find((r) => r.id === 'ach-supplier')?.status).toBe('returned');
      const byStatus = await totals('&by=status');
      expect(
        Object.fromEntries((byStatus.breakdown?.groups ?? []).map((g) => [g.key, g.count])),
      ).toEqual({ settled: 2, returned: 1 });
    });

    it('the sweep is paced: not again within its interval, however often the open days are read', async () => {
      const asked = service.received.length;
      // Syncs of the open days, every 10 minutes for most of an interval: no list by status.
      for (let i = 0; i < 5; i++) {
        await later(10 * MINUTE);
        await totals('&refresh=1');
      }
      const walks = service.received.slice(asked).filter((r) => r.url.startsWith('/transaction?'));
      expect(walks.length).toBeGreaterThan(0);
      expect(statusLists(asked)).toEqual([]);
      // A charge disputed meanwhile, its day final: the next sweep, an interval after the last.
      service.setWorld(
        world(
          opening.map((r) =>
            r.id === 'ach-supplier'
              ? { ...r, status: 'returned' }
              : r.id === 'disputed-dinner'
                ? { ...r, status: 'reversed' }
                : r,
          ),
        ),
      );
      await later(10 * MINUTE + MINUTE);
      const swept = service.received.length;
      const after = await totals('&refresh=1');
      expect(after.summary.buckets.released).toMatchObject({ count: 1, cents: -80_00 });
      expect(after.summary.posted).toEqual({ count: 1, cents: -4_50 });
      // Three list walks, one page each here: one per status.
      expect(statusLists(swept)).toHaveLength(3);
    });
  });
}
