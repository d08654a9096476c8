// The transaction index's sync series, moved for real: a read over HTTP starts a sync of the
// simulator's sub account, which counts as synced with the pages it read (its days still to read
// scraped while it runs); with the card service
// failing, the next sync counts as failed and the lag grows until a sync succeeds again.

import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestSession } from '../../test/harness';
import { parseSamples, type Sample, sampleValue } from '../../test/scrape';
import { failureBackoffMs } from '../jobs/failure-backoff';
import { createPrometheusMetrics } from './prometheus-metrics';

const registry = new Registry();
let t: TestApp;
let finance: TestSession;
let subAccountId: string;

beforeAll(async () => {
  t = await startTestApp({
    metrics: createPrometheusMetrics(registry),
    sim: { transactions: 300, subAccounts: 1 },
  });
  finance = await t.signIn('finance');
  subAccountId = t.sim.data.subAccounts()[0]?.id ?? '';
}, 60_000);
afterAll(async () => t?.close());

const scrape = async () => parseSamples(await registry.metrics());
const value = (samples: Sample[], name: string, labels: Record<string, string> = {}) => {
  const wanted = Object.entries(labels);
  const found = samples.filter(
    (s) => s.name === name && wanted.every(([k, v]) => s.labels[k] === v),
  );
  expect(found.length, `${name} ${JSON.stringify(labels)}`).toBe(1);
  return sampleValue(samples, name, labels);
};

/** Scrapes until `done` holds (the sync runs in the background), at most 20 s. */
async function scrapeUntil(done: (samples: Sample[]) => boolean): Promise<Sample[]> {
  for (let i = 0; i < 400; i++) {
    const samples = await scrape();
    if (done(samples)) return samples;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the sync series never moved');
}

/** A read of the sub account's list; `refresh` as the Refresh button (open days 5 s old are due). */
const read = (refresh = false) =>
  t.request
    .get(
      `/api/index/transactions?subAccountId=${encodeURIComponent(subAccountId)}${refresh ? '&refresh=1' : ''}`,
    )
    .set(finance.headers());

describe('the index sync series', () => {
  it('start at 0, with no lag', async () => {
    const samples = await scrape();
    expect(value(samples, 'bff_index_syncs_total', { outcome: 'synced' })).toBe(0);
    expect(value(samples, 'bff_index_syncs_total', { outcome: 'failed' })).toBe(0);
    expect(value(samples, 'bff_index_sync_pages_total')).toBe(0);
    expect(value(samples, 'bff_index_sync_lag_seconds')).toBe(0);
    expect(value(samples, 'bff_index_sync_dates_left')).toBe(0);
    expect(value(samples, 'bff_index_sync_rows_read')).toBe(0);
  });

  it('a read that starts a sync counts it synced, with its pages and time, and owes nothing after', async () => {
    // Each page 100 ms late: the sync runs long enough to be scraped while it does.
    t.sim.faults.set({ latencyMs: 100 });
    const first = await read();
    expect(first.status).toBe(200);
    expect(first.body.freshness.syncing).toBe(true);
    // Rows so far are said while a sync runs (none yet at its start), and not once none does.
    expect(first.body.freshness.rows).toBe(0);
    // While it runs, its days still to read are on this replica's scrape: at most the index's
    // two years of history (732 days), as a later read's freshness says too.
    const running = await scrapeUntil((s) => sampleValue(s, 'bff_index_sync_dates_left') > 0);
    expect(value(running, 'bff_index_sync_dates_left')).toBeLessThanOrEqual(732);
    const during = (await read()).body.freshness;
    if (during.syncing) expect(during.days).toBe(732);
    // Once it ends, nothing runs here: no days left, no rows read.
    const samples = await scrapeUntil(
      (s) =>
        sampleValue(s, 'bff_index_syncs_total', { outcome: 'synced' }) === 1 &&
        sampleValue(s, 'bff_index_sync_dates_left') === 0,
    );
    t.sim.faults.clear();
    expect(value(samples, 'bff_index_sync_rows_read')).toBe(0);
    const after = (await read()).body.freshness;
    expect(after.syncing).toBe(false);
    expect(after.rows).toBeUndefined();
    expect(value(samples, 'bff_index_syncs_total', { outcome: 'failed' })).toBe(0);
    expect(value(samples, 'bff_index_sync_pages_total')).toBeGreaterThan(0);
    expect(value(samples, 'bff_index_sync_duration_seconds_count')).toBe(1);
    // The clock moved on; the sync that was owed is done, so nothing is behind.
    t.clock.advance(30_000);
    expect(value(await scrape(), 'bff_index_sync_lag_seconds')).toBe(0);
  });

  it('with the card service failing, counts a failed sync and the lag grows until one succeeds', async () => {
    const pagesBefore = value(await scrape(), 'bff_index_sync_pages_total');
    t.sim.faults.set({ errorRate: 1 });
    // Ten minutes later, Refresh: the open days are due again, and the sync fails.
    t.clock.advance(10 * 60_000);
    expect((await read(true)).status).toBe(200);
    let samples = await scrapeUntil(
      (s) => sampleValue(s, 'bff_index_syncs_total', { outcome: 'failed' }) === 1,
    );
    expect(value(samples, 'bff_index_syncs_total', { outcome: 'synced' })).toBe(1);
    expect(value(samples, 'bff_index_sync_pages_total')).toBe(pagesBefore);
    // Owed since that read: two minutes on, two minutes behind; reads meanwhile do not reset it.
    t.clock.advance(60_000);
    expect((await read()).status).toBe(200);
    t.clock.advance(60_000);
    samples = await scrape();
    expect(value(samples, 'bff_index_sync_lag_seconds')).toBe(120);

    // The card service back: once the failure is no longer remembered, a read syncs again. The
    // read a minute in started a second sync, which failed too: remembered for the schedule's
    // second step (its failure may have come as late as the last minute's end).
    t.sim.faults.clear();
    t.clock.advance(failureBackoffMs(2));
    expect((await read(true)).status).toBe(200);
    samples = await scrapeUntil(
      (s) => sampleValue(s, 'bff_index_syncs_total', { outcome: 'synced' }) === 2,
    );
    expect(value(samples, 'bff_index_sync_lag_seconds')).toBe(0);
    expect(value(samples, 'bff_index_sync_pages_total')).toBeGreaterThan(pagesBefore);
  });
});
