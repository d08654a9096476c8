// The Overview read through the real BFF equals a brute-force sum over the simulator's own
// data, for random sub accounts (or all), periods and time zones, daylight-saving changes and
// a transaction on a day's first millisecond included. Days are kept between runs, so later
// runs are answered partly from stored days.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedOverview, settledOverview } from '../../test/expected-overview';
import { ManualClock, startTestApp, type TestApp, type TestSession } from '../../test/harness';

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

describe('the overview matches a brute-force sum over the simulator’s data', () => {
  let t: TestApp;
  let finance: TestSession;

  beforeAll(async () => {
    t = await startTestApp({
      sim: { transactions: 4_000, now: () => NOW, rateLimit: false },
      clock: new ManualClock(NOW),
    });
    finance = await t.signIn('finance');
  });
  afterAll(async () => t.close());

  const check = async (q: { subAccountId?: string; from: string; to: string; tz: string }) => {
    const query: Record<string, string> = { from: q.from, to: q.to, tz: q.tz };
    if (q.subAccountId) query.subAccountId = q.subAccountId;
    const got = await settledOverview(t, finance, query);
    expect(got.status).toBe('complete');
    // When the days that can still change were read is checked in overview-routes.test.ts.
    const { status: _s, progress: _p, updatedAt: _u, ...rest } = got;
    expect(rest).toEqual(expectedOverview(t, q));
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
    expect(on.totals.creditsCents).toBeGreaterThanOrEqual(opening?.amountCents ?? 0);
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
        ],
      },
    );
  }, 240_000);
});
