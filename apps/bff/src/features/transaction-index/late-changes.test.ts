// A payment's status changing after its day is final, over HTTP on both engines, against a card
// service that follows the contract: a returned, reversed or disputed payment is the same row
// with a new status (docs/money.md), so the index must read a final day again when one of its
// rows changes. The late-change sweep lists those statuses at most once an interval per sub
// account (`LATE_CHANGE_SWEEP_MS`) and walks the days they changed; days holding a dispute are
// walked again by each sweep. The figures expected below are docs/money.md's table by hand.
import { overviewSchema } from '@card-console/shared/api/overview';
import {
  indexPageSchema,
  indexTotalsAnswerSchema,
} from '@card-console/shared/api/transaction-index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCsv } from '../../test/csv';
import { ManualClock, type TestApp, type TestSession } from '../../test/harness';
import { contractServiceOnEngines, oneSubAccountWorld } from '../../test/one-sub-account';
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
  { id: 'ach-rent', status: 'settled', amountCents: -1_200_00, daysAgo: 20, card: false },
  { id: 'disputed-dinner', status: 'dispute', amountCents: -80_00, daysAgo: 12, card: true },
  { id: 'coffee', status: 'settled', amountCents: -4_50, daysAgo: 0, card: true },
];

/** The service's world of `rows`, each row named in `statusOf` now of that status. */
function world(rows: Row[], statusOf: Record<string, string> = {}) {
  return oneSubAccountWorld(
    rows.map((r) => ({
      ...r,
      status: statusOf[r.id] ?? r.status,
      date: new Date(NOW - r.daysAgo * DAY - 3_600_000).toISOString(),
      description: r.card ? `Purchase ${r.id}` : `ACH ${r.id}`,
    })),
    50,
  );
}

const upstream = contractServiceOnEngines('late-changes-key', 'late_changes');

/** The requests of the card service's list by status (the sweep's), since `from`. */
const statusLists = (from: number) =>
  upstream.service.received
    .slice(from)
    .filter((r) => r.url.startsWith('/transaction?') && /[?&]status=/.test(r.url));

for (const engine of Object.keys(upstream.engines) as (keyof typeof upstream.engines)[]) {
  describe(`late status changes on the ${engine} engine`, () => {
    let t: TestApp;
    let finance: TestSession;
    let clock: ManualClock;
    /** The card service's requests before this app's. */
    let start = 0;
    beforeAll(async () => {
      upstream.service.setWorld(world(opening));
      start = upstream.service.received.length;
      clock = new ManualClock(NOW);
      t = await upstream.startApp(engine, clock);
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
      expect(before.summary.buckets.payment).toMatchObject({ count: 2, cents: -6_200_00 });
      expect(before.summary.buckets.returned).toMatchObject({ count: 0, cents: 0 });
      expect(before.summary.posted).toEqual({ count: 4, cents: -6_200_00 - 80_00 - 4_50 });
      expect(await quickbooks()).toContainEqual(['ACH ach-supplier', '-5000.00']);
      expect(await quickbooks()).toContainEqual(['ACH ach-rent', '-1200.00']);
      expect((await overview()).payment).toMatchObject({ count: 2, cents: -6_200_00 });
      expect(statusLists(start)).toEqual([]);

      // The service returns the payment, calls another failed after it had settled (the
      // contract shows no transitions) and resolves the dispute for the merchant: the same rows
      // with new statuses, their days long final.
      upstream.service.setWorld(
        world(opening, {
          'ach-supplier': 'returned',
          'ach-rent': 'failed',
          'disputed-dinner': 'settled',
        }),
      );
      const asked = upstream.service.received.length;
      await later(LATE_CHANGE_SWEEP_MS + MINUTE);
      const after = await totals();
      // Returned, failed: no money moved. Never Other payments, never posted, never in a file.
      expect(after.summary.buckets.payment).toMatchObject({ count: 0, cents: 0 });
      expect(after.summary.buckets.returned).toMatchObject({ count: 1, cents: -5_000_00 });
      expect(after.summary.buckets.attempted).toMatchObject({ count: 1, cents: -1_200_00 });
      expect(after.summary.posted).toEqual({ count: 2, cents: -80_00 - 4_50 });
      // Found by the sweep's lists by status, one walk each.
      expect(
        statusLists(asked)
          .map((r) => new URLSearchParams(r.url.split('?')[1]).get('status'))
          .sort(),
      ).toEqual(['canceled', 'dispute', 'failed', 'returned', 'reversed']);
      const money = await overview();
      expect(money.payment).toMatchObject({ count: 0, cents: 0 });
      expect(money.returned).toMatchObject({ count: 1, cents: -5_000_00 });
      const books = await quickbooks();
      expect(books.map(([description]) => description)).not.toContain('ACH ach-supplier');
      expect(books.map(([description]) => description)).not.toContain('ACH ach-rent');
      expect(books.map(([, amount]) => amount)).not.toContain('-5000.00');
      // The dispute is settled now, in the list and by status.
      const rows = await list();
      expect(rows.items.find((r) => r.id === 'disputed-dinner')?.status).toBe('settled');
      expect(rows.items.find((r) => r.id === 'ach-supplier')?.status).toBe('returned');
      const byStatus = await totals('&by=status');
      expect(
        Object.fromEntries((byStatus.breakdown?.groups ?? []).map((g) => [g.key, g.count])),
      ).toEqual({ settled: 2, returned: 1, failed: 1 });
    });

    it('the sweep is paced: not again within its interval, however often the open days are read', async () => {
      const asked = upstream.service.received.length;
      // Syncs of the open days, every 10 minutes for most of an interval: no list by status.
      for (let i = 0; i < 5; i++) {
        await later(10 * MINUTE);
        await totals('&refresh=1');
      }
      const walks = upstream.service.received
        .slice(asked)
        .filter((r) => r.url.startsWith('/transaction?'));
      expect(walks.length).toBeGreaterThan(0);
      expect(statusLists(asked)).toEqual([]);
      // A charge disputed meanwhile, its day final: the next sweep, an interval after the last.
      upstream.service.setWorld(
        world(opening, {
          'ach-supplier': 'returned',
          'ach-rent': 'failed',
          'disputed-dinner': 'reversed',
        }),
      );
      await later(10 * MINUTE + MINUTE);
      const swept = upstream.service.received.length;
      const after = await totals('&refresh=1');
      expect(after.summary.buckets.released).toMatchObject({ count: 1, cents: -80_00 });
      expect(after.summary.posted).toEqual({ count: 1, cents: -4_50 });
      // Five list walks, one page each here: one per status.
      expect(statusLists(swept)).toHaveLength(5);
    });
  });
}
