// The Overview read through the real BFF equals a brute-force sum over the simulator's own
// data (each row read by docs/money.md's table, by hand: `expected-overview.ts`), for random sub accounts (or all), periods and time zones, daylight-saving changes and
// a transaction on a day's first millisecond included. Days are kept between runs, so later
// runs are answered partly from stored days.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedOverview, settledOverview } from '../../test/expected-overview';
import { ManualClock, startTestApp, type TestApp, type TestSession } from '../../test/harness';
import { unreachableIndex } from '../../test/unreachable-index';
import { INDEX_HISTORY_DAYS } from '../transaction-index';

/**
 * 04:00 UTC: the simulator's data starts 18 months before, at 2025-05-20T04:00:00.000Z, with
 * the first sub account's opening credit: midnight exactly in New York (EDT).
 */
const NOW = Date.UTC(2026, 10, 20, 4);
const zones = [
  'UTC',
  'America/New_York', // DST from 2026-03-08 to 2026-11-01
  'Europe/Paris',
  'Asia/Kolkata', // +05:30
  'Australia/Lord_Howe', // a 30-minute DST change
  'Pacific/Kiritimati', // +14:00
  'America/St_Johns', // −03:30 / −02:30
];
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const DAY_MS = 86_400_000;

/** The index keeps this many days back from NOW (UTC days): periods within it are read there. */
const INDEX_FROM = day(NOW - (INDEX_HISTORY_DAYS - 1) * DAY_MS);

describe.each([
  ['walked from the card service', true],
  ['read from the index once it is synced', false],
] as const)('the overview matches a brute-force sum over the simulator’s data, %s', (_, walked) => {
  let t: TestApp;
  let finance: TestSession;

  beforeAll(async () => {
    t = await startTestApp({
      sim: { transactions: 4_000, now: () => NOW, rateLimit: false },
      clock: new ManualClock(NOW),
      recordSimRequests: true,
      ...(walked ? { stores: unreachableIndex() } : {}),
    });
    finance = await t.signIn('finance');
    if (!walked) {
      // A list read starts the sync of every sub account; wait until the index says synced.
      for (let i = 0; ; i++) {
        const res = await t.request.get('/api/index/transactions').set(finance.headers());
        if (res.body.freshness?.syncing === false && res.body.freshness?.updatedAt) break;
        if (i > 300) throw new Error('the index did not sync');
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }, 120_000);
  afterAll(async () => t.close());

  const pages = () => t.simRequests.filter((r) => r.url.startsWith('/transaction')).length;
  let indexedChecks = 0;

  const check = async (q: { subAccountId?: string; from: string; to: string; tz: string }) => {
    const query: Record<string, string> = { from: q.from, to: q.to, tz: q.tz };
    if (q.subAccountId) query.subAccountId = q.subAccountId;
    const before = pages();
    const got = await settledOverview(t, finance, query);
    expect(got.status).toBe('complete');
    // When the days that can still change were read is checked in overview-routes.test.ts.
    const { status: _s, progress: _p, updatedAt: _u, categoryCodes, ...rest } = got;
    const { categoryCodes: wantCodes, ...want } = expectedOverview(t, q, { categoryCodes: true });
    expect(rest).toEqual(want);
    // A period the index holds (with the one before it) is answered without a walk; one
    // reaching further back is walked; the walk tests never read the index.
    const length = (Date.parse(q.to) - Date.parse(q.from)) / DAY_MS + 1;
    const previousFrom = day(Date.parse(q.from) - length * DAY_MS);
    // A day is within the index when its UTC days are: a zone east of UTC starts the day before.
    const indexed = !walked && day(Date.parse(previousFrom) - DAY_MS) >= INDEX_FROM;
    if (indexed) {
      expect(pages(), 'no upstream page for an indexed period').toBe(before);
      // The codes' breakdown, which only the index keeps.
      expect(categoryCodes).toEqual(wantCodes);
      indexedChecks++;
    } else if (walked) expect(categoryCodes).toBeUndefined();
  };

  it('a transaction on the first millisecond of a day counts on that day, not the one before', async () => {
    const sub = t.sim.data.subAccounts()[0]?.id ?? '';
    const opening = t.sim.data.transactions(sub).at(-1);
    expect(opening?.date).toBe('2025-05-20T04:00:00.000Z');
    const tz = 'America/New_York';
    await check({ subAccountId: sub, from: '2025-05-20', to: '2025-05-20', tz });
    const on = await settledOverview(t, finance, {
      subAccountId: sub,
      from: '2025-05-20',
      to: '2025-05-20',
      tz,
    });
    // The opening credit is funding: a transfer in, never card spend.
    expect(on.totals.money.transfer.cents).toBeGreaterThanOrEqual(opening?.amountCents ?? 0);
    expect(on.previousTotals?.count).toBe(0);
  });

  it('random sub accounts, periods and zones', async () => {
    const subs = t.sim.data.subAccounts().map((s) => s.id);
    const windowStart = Date.UTC(2025, 4, 15);
    const span = Math.floor((NOW + 5 * DAY_MS - windowStart) / DAY_MS);
    // Periods anywhere in the data, and short ones across the 2026 DST changes.
    const anywhere = fc
      .tuple(fc.integer({ min: 0, max: span }), fc.integer({ min: 1, max: 366 }))
      .map(([start, length]) => ({ start: windowStart + start * DAY_MS, length }));
    const aroundDst = fc
      .tuple(
        fc.constantFrom(Date.UTC(2026, 2, 8), Date.UTC(2026, 10, 1)),
        fc.integer({ min: -3, max: 1 }),
        fc.integer({ min: 1, max: 5 }),
      )
      .map(([change, offset, length]) => ({ start: change + offset * DAY_MS, length }));
    await fc.assert(
      fc.asyncProperty(
        fc.option(fc.constantFrom(...subs), { nil: undefined }),
        fc.oneof(anywhere, aroundDst),
        fc.constantFrom(...zones),
        async (subAccountId, { start, length }, tz) => {
          const from = day(start);
          const to = day(start + (length - 1) * DAY_MS);
          await check({ ...(subAccountId ? { subAccountId } : {}), from, to, tz });
        },
      ),
      {
        numRuns: 14,
        examples: [
          [subs[1], { start: Date.UTC(2026, 2, 7), length: 3 }, 'America/New_York'],
          [undefined, { start: Date.UTC(2026, 9, 30), length: 4 }, 'America/New_York'],
          [undefined, { start: Date.UTC(2025, 10, 21), length: 366 }, 'Europe/Paris'],
          [undefined, { start: Date.UTC(2026, 5, 1), length: 170 }, 'Asia/Kolkata'],
          [subs[0], { start: Date.UTC(2026, 10, 14), length: 7 }, 'Pacific/Kiritimati'],
        ],
      },
    );
    if (!walked) expect(indexedChecks).toBeGreaterThanOrEqual(3);
  }, 240_000);
});
