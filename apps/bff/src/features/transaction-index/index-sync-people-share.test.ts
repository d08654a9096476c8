// The index sync against a card service that publishes its rate limit (the simulator's token
// bucket, in a process of its own), while a person edits a card: the walk keeps to its share of
// the limit, so the person's writes, which are never tried again, are never turned away (429),
// and the walk itself is never turned away either.

import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../core/clock';
import type { SqlEngine } from '../../platform/sql/sql-engine';
import { silentLogger } from '../../test/audit-cluster';
import {
  type CardServiceProcess,
  startCardServiceProcess,
} from '../../test/engines/card-service-process';
import { migratedMemoryEngine } from '../../test/engines/embedded';
import { TEST_API_KEY, testClient } from '../../test/upstream-client';
import { TransactionIndexStore } from './index-store';
import { INDEX_HISTORY_DAYS, indexSyncWork, newSyncProgress } from './index-sync';

/** The service's published limit: 20 at once, then 40 a second. */
const LIMIT = { burst: 20, perSecond: 40 };

let engine: SqlEngine;
let service: CardServiceProcess;
beforeAll(async () => {
  [engine, service] = await Promise.all([
    migratedMemoryEngine(),
    startCardServiceProcess({
      apiKey: TEST_API_KEY,
      seed: 11,
      subAccounts: 1,
      transactions: 6_000,
      months: 6,
      rateLimit: { capacity: LIMIT.burst, refillPerSecond: LIMIT.perSecond },
    }),
  ]);
}, 60_000);
afterAll(async () => {
  await service?.stop();
  await engine?.close();
});

describe('the index sync beside a person, at a published rate limit', () => {
  it('leaves a share of the limit to people: a card edited five times a second meanwhile is never refused', async () => {
    const { client } = testClient(service.url, { rateLimit: LIMIT });
    const ctx = { requestId: 'req-person' };
    const subs = await client.listSubAccounts(ctx, {});
    const sub = subs.items[0]?.id as string;
    const card = (await client.listCards(ctx, {})).items[0];
    if (!card) throw new Error('the service has no card');
    const work = indexSyncWork({
      upstream: client,
      store: new TransactionIndexStore(engine),
      clock: systemClock,
      logger: silentLogger,
    });
    const progress = newSyncProgress();
    const synced = work(
      sub,
      { requestId: 'req-sync', freshForMs: 0 },
      { key: sub, progress, signal: new AbortController().signal },
    );
    let syncing = true;
    const finished = synced.finally(() => {
      syncing = false;
    });
    // A person renaming a card every 200 ms for as long as the walk runs.
    const edits: Array<'ok' | string> = [];
    while (syncing) {
      const name = `Renamed ${edits.length}`;
      edits.push(
        await client.updateCard(ctx, card.id, { name }).then(
          (updated) => (updated.name === name ? 'ok' : `answered ${updated.name}`),
          (error: { code?: string }) => String(error.code),
        ),
      );
      await sleep(200);
    }
    await finished;

    expect(progress.daysDone).toBe(INDEX_HISTORY_DAYS);
    // The walk ran long enough to meet the person's edits.
    expect(edits.length).toBeGreaterThanOrEqual(5);
    expect(edits.filter((e) => e !== 'ok')).toEqual([]);
    const seen = await service.recorded();
    expect(seen.length).toBeGreaterThan(LIMIT.burst * 2);
    expect(seen.filter((s) => s.status === 429)).toEqual([]);
  }, 60_000);
});
