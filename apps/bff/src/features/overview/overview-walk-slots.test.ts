// The Overview's walks are bulk walks, over real HTTP against the simulator: each runs in a
// walk slot of the person who started it (`walk-gate.ts`), so new periods asked for at once
// are walked one after another here (one slot), never side by side.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settledOverview } from '../../test/expected-overview';
import { ManualClock, startTestApp, type TestApp, type TestSession } from '../../test/harness';
import { unreachableIndex } from '../../test/unreachable-index';

const NOW = Date.UTC(2026, 10, 20, 15);

describe('GET /api/overview: walk slots', () => {
  let t: TestApp;
  let finance: TestSession;

  beforeAll(async () => {
    t = await startTestApp({
      // The Overview's own walk: as when the index cannot answer.
      stores: unreachableIndex(),
      // Pages of 10: each sub account's month is many pages, walked over several round trips.
      sim: {
        transactions: 6_000,
        now: () => NOW,
        rateLimit: false,
        pageSize: { transactions: 10 },
      },
      clock: new ManualClock(NOW),
      recordSimRequests: true,
      env: { walkCaps: { perPerson: 1, total: 1 } },
    });
    finance = await t.signIn('finance');
  });
  afterAll(async () => t.close());

  it('periods of two sub accounts asked for at once are walked one after the other', async () => {
    t.sim.faults.set({ latencyMs: 3 });
    const [a, b] = t.sim.data.subAccounts().map((s) => s.id);
    const mark = t.simRequests.length;
    const period = { from: '2026-07-01', to: '2026-08-31', tz: 'UTC' };
    const [first, second] = await Promise.all(
      [a, b].map((subAccountId) =>
        settledOverview(t, finance, { ...period, subAccountId: subAccountId ?? '' }),
      ),
    );
    t.sim.faults.clear();
    expect([first?.status, second?.status]).toEqual(['complete', 'complete']);
    const walked = t.simRequests
      .slice(mark)
      .filter((r) => r.method === 'GET' && r.url.startsWith('/transaction?'))
      .map((r) => new URL(r.url, 'http://sim.invalid').searchParams.get('subAccountId'));
    expect(walked.filter((id) => id === a).length).toBeGreaterThan(3);
    expect(walked.filter((id) => id === b).length).toBeGreaterThan(3);
    // One run of each: a page of the other sub account never came in between.
    const switches = walked.filter((id, i) => i > 0 && id !== walked[i - 1]).length;
    expect(switches).toBe(1);
  });
});
