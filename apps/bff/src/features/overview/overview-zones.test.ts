// The Overview's zone over real HTTP against the simulator: every spelling of one zone keys
// one series and one walk, and the answer names the zone by its one canonical spelling.
import { type Overview, overviewSchema } from '@card-console/shared/api/overview';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settledOverview } from '../../test/expected-overview';
import { ManualClock, startTestApp, type TestApp, type TestSession } from '../../test/harness';
import { unreachableIndex } from '../../test/unreachable-index';

const NOW = Date.UTC(2026, 10, 20, 15);
const PERIOD = { from: '2026-08-01', to: '2026-08-31' };

describe('GET /api/overview: time zones', () => {
  let t: TestApp;
  let finance: TestSession;

  beforeAll(async () => {
    t = await startTestApp({
      // The Overview's own walk: as when the index cannot answer.
      stores: unreachableIndex(),
      sim: { transactions: 3_000, now: () => NOW, rateLimit: false },
      clock: new ManualClock(NOW),
      recordSimRequests: true,
    });
    finance = await t.signIn('finance');
  });
  afterAll(async () => t.close());

  /** Transaction pages the simulator has been asked for so far. */
  const pagesRead = () =>
    t.simRequests.filter((r) => r.method === 'GET' && r.url.startsWith('/transaction?')).length;

  /** The Overview in `tz`, asked once: it must already be known (no walk, not computing). */
  async function askKnown(tz: string): Promise<Overview> {
    const before = pagesRead();
    const res = await t.request
      .get('/api/overview')
      .query({ ...PERIOD, tz })
      .set(finance.headers());
    expect(res.status, `${tz}: ${JSON.stringify(res.body)}`).toBe(200);
    const body = overviewSchema.parse(res.body);
    expect(body.status, tz).toBe('complete');
    expect(pagesRead() - before, `${tz} walked again`).toBe(0);
    return body;
  }

  it('UTC spelled any way is one series and one walk, answered as "UTC"', async () => {
    const before = pagesRead();
    const utc = await settledOverview(t, finance, { ...PERIOD, tz: 'UTC' });
    expect(pagesRead()).toBeGreaterThan(before);
    expect(utc.period.tz).toBe('UTC');
    const spellings = ['utc', 'Utc', 'Etc/UTC', 'etc/utc', 'Etc/UCT', 'UCT', 'Zulu', 'Etc/Zulu'];
    spellings.push('Universal', 'GMT', 'Etc/GMT', 'GMT0', 'Etc/GMT+0', 'Etc/GMT-0', 'Greenwich');
    for (const tz of spellings) expect(await askKnown(tz), tz).toEqual(utc);
  });

  it('a link name and its zone share one series; the answer names them alike', async () => {
    for (const [zone, links] of [
      ['America/New_York', ['US/Eastern', 'us/eastern', 'AMERICA/NEW_YORK']],
      ['Asia/Kolkata', ['Asia/Calcutta', 'asia/kolkata']],
      ['Europe/Kyiv', ['Europe/Kiev']],
    ] as const) {
      const first = await settledOverview(t, finance, { ...PERIOD, tz: zone });
      for (const tz of links) expect(await askKnown(tz), tz).toEqual(first);
    }
  });

  it('different zones are different series', async () => {
    await settledOverview(t, finance, { ...PERIOD, tz: 'UTC' });
    const before = pagesRead();
    const paris = await settledOverview(t, finance, { ...PERIOD, tz: 'Europe/Paris' });
    expect(pagesRead()).toBeGreaterThan(before);
    expect(paris.period.tz).toBe('Europe/Paris');
  });
});
