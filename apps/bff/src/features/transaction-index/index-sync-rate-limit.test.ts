// The index sync against a card service at its rate limit (the simulator's token bucket, small,
// in a process of its own behind a proxy that records when every request came): the 429s slow
// the walk down, no page is asked for inside the wait a 429 asked for once the BFF has read it,
// and the sync ends with every row. And against one that publishes its limit, while a person
// edits a card: the walk keeps to its share of the limit, so the person's writes, which are
// never tried again, are never turned away (429), and the walk itself is never turned away either.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
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
import type { UpstreamClient } from '../../upstream/client';
import { TransactionIndexStore } from './index-store';
import { INDEX_HISTORY_DAYS, indexSyncWork, newSyncProgress, utcDay } from './index-sync';

/** The published limit of the second service: 20 at once, then 40 a second. */
const LIMIT = { burst: 20, perSecond: 40 };

let engine: SqlEngine;
let service: CardServiceProcess;
let published: CardServiceProcess;
beforeAll(async () => {
  [engine, service, published] = await Promise.all([
    migratedMemoryEngine(),
    // 20 at once, then 40 a second: the walk's pace starts at 8 and grows past what this lets by.
    startCardServiceProcess({
      apiKey: TEST_API_KEY,
      seed: 7,
      subAccounts: 1,
      transactions: 4_000,
      months: 6,
      rateLimit: { capacity: 20, refillPerSecond: 40 },
    }),
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
  await Promise.all([service?.stop(), published?.stop()]);
  await engine?.close();
});

/** The index sync of `sub` through `client` from its start, and its progress. */
function syncSubAccount(client: UpstreamClient, sub: string) {
  const work = indexSyncWork({
    upstream: client,
    store: new TransactionIndexStore(engine),
    clock: systemClock,
    logger: silentLogger,
  });
  const progress = newSyncProgress();
  const done = work(
    sub,
    { requestId: 'req-rate-limited', freshForMs: 0 },
    { key: sub, progress, signal: new AbortController().signal },
  );
  return { progress, done };
}

describe('the index sync at the card service’s rate limit', () => {
  it('slows down on its 429s, asks for nothing inside the wait they asked for, and ends with every row', async () => {
    // When the BFF asked for each page: undici creates a request as the client dispatches it,
    // before it waits for a connection or the thread (busy with the index's writes) gets round
    // to sending it.
    const asked: number[] = [];
    const onCreate = () => asked.push(Date.now());
    subscribe('undici:request:create', onCreate);
    const { client } = testClient(service.url);
    const subs = await client.listSubAccounts({ requestId: 'req-subs' }, {});
    const sub = subs.items[0]?.id as string;
    // When the BFF read each 429 (its pace told of it), on the machine's clock.
    const pace = client.pace;
    if (!pace) throw new Error('the upstream client has no pace');
    const heard: { at: number; waitMs: number }[] = [];
    const tell = pace.busy.bind(pace);
    pace.busy = (waitMs) => {
      heard.push({ at: Date.now(), waitMs: waitMs ?? 0 });
      tell(waitMs);
    };
    const { progress, done } = syncSubAccount(client, sub);
    try {
      await done;
    } finally {
      unsubscribe('undici:request:create', onCreate);
    }

    const from = Date.parse(`${utcDay(Date.now() - (INDEX_HISTORY_DAYS - 1) * 86_400_000)}T00:00Z`);
    expect(progress.rows).toBe(await service.rowsSince(sub, from));
    expect(progress.daysDone).toBe(INDEX_HISTORY_DAYS);

    const seen = await service.recorded();
    const refused = seen.filter((s) => s.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((s) => (s.retryAfterMs ?? 0) >= 1_000)).toBe(true);
    // Nothing was asked for inside a 429's wait once the BFF had read that 429 (the pace holds
    // the walk's turns, and a retry, or a page whose turn came before, waits out the hold the
    // 429 set for bulk calls). The moments are the BFF's own, so a page asked for before the 429
    // was read but sent late, its thread busy, does not count; a BFF that ignored the wait would
    // ask dozens in it. Every request the service saw was one of these.
    expect(asked).toHaveLength(seen.length);
    expect(heard).toHaveLength(refused.length);
    expect(heard.every((h) => h.waitMs >= 1_000)).toBe(true);
    const ignored = asked.filter((at) => heard.some((h) => at > h.at && at < h.at + h.waitMs));
    expect(ignored).toEqual([]);
    // The pace backed off, and it heard of every 429.
    expect(client.pace?.state().backoffs).toBeGreaterThan(0);
    expect(client.pace?.state().busy).toBe(refused.length);
    // Slowed, not failed: the walk took at least the waits it was asked for, one after another.
    const span = (seen.at(-1)?.at ?? 0) - (seen[0]?.at ?? 0);
    expect(span).toBeGreaterThanOrEqual(1_000);
  }, 60_000);

  it('leaves a share of the limit to people: a card edited five times a second meanwhile is never refused', async () => {
    const { client } = testClient(published.url, { rateLimit: LIMIT });
    const ctx = { requestId: 'req-person' };
    const subs = await client.listSubAccounts(ctx, {});
    const sub = subs.items[0]?.id as string;
    const card = (await client.listCards(ctx, {})).items[0];
    if (!card) throw new Error('the service has no card');
    const { progress, done: synced } = syncSubAccount(client, sub);
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
    const seen = await published.recorded();
    expect(seen.length).toBeGreaterThan(LIMIT.burst * 2);
    expect(seen.filter((s) => s.status === 429)).toEqual([]);
  }, 60_000);
});
