// Two replicas' index syncs at once against one card service that publishes its rate limit (in a
// process of its own behind a proxy that records every request): the limit is the key's,
// whichever replica calls, so each replica's walks keep to their part of it, counted by the
// roll of replicas alive in their shared PostgreSQL. Each replica here is a pool of its own
// (logged in as the writer role only), an upstream client of its own (its own pace) and a
// sync of its own sub account, all at once over HTTP. Without the roll, the same two walks
// together are turned away (429): what the roll is for.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../core/clock';
import { SqlReplicaRoll, shareThePublishedLimit } from '../../platform/pagination/replica-roll';
import type { SqlEngine } from '../../platform/sql/sql-engine';
import { silentLogger } from '../../test/audit-cluster';
import {
  type CardServiceProcess,
  startCardServiceProcess,
} from '../../test/engines/card-service-process';
import { postgresReplicas, type SqlReplicas } from '../../test/engines/sql-replicas';
import { TEST_API_KEY, testClient } from '../../test/upstream-client';
import type { UpstreamClient } from '../../upstream/client';
import { TransactionIndexStore } from './index-store';
import { INDEX_HISTORY_DAYS, indexSyncWork, newSyncProgress } from './index-sync';

/** The service’s published limit: 4 at once, then 6 a second. */
const LIMIT = { burst: 4, perSecond: 6 };
const LEASE_MS = 1_500;

let sql: SqlReplicas;
let service: CardServiceProcess;
beforeAll(async () => {
  [sql, service] = await Promise.all([
    postgresReplicas(),
    startCardServiceProcess({
      apiKey: TEST_API_KEY,
      seed: 23,
      subAccounts: 2,
      transactions: 1_200,
      months: 6,
      rateLimit: { capacity: LIMIT.burst, refillPerSecond: LIMIT.perSecond },
    }),
  ]);
}, 60_000);
afterAll(async () => {
  await service?.stop();
  await sql?.close();
});

/** `sub`'s index sync from its start on a replica (`engine`, `client`); its progress at the end. */
async function syncOn(engine: SqlEngine, client: UpstreamClient, sub: string) {
  const progress = newSyncProgress();
  await indexSyncWork({
    upstream: client,
    store: new TransactionIndexStore(engine),
    clock: systemClock,
    logger: silentLogger,
  })(
    sub,
    { requestId: `req-sync-${sub}`, freshForMs: 0 },
    { key: sub, progress, signal: new AbortController().signal },
  );
  return progress;
}

/** The two sub accounts synced at once, one on each replica; what the service saw meanwhile. */
async function bothAtOnce(clients: [UpstreamClient, UpstreamClient]) {
  await sql.owner.query(
    'TRUNCATE index_transaction, index_sync_day, index_hour_tally, index_day_key_tally, index_month_key_tally, index_sync_range_page',
  );
  const subs = (await clients[0].listSubAccounts({ requestId: 'req-subs' }, {})).items.map(
    (s) => s.id,
  );
  expect(subs).toHaveLength(2);
  // Let the service's bucket fill again after whatever came before.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const before = (await service.recorded()).length;
  const progress = await Promise.all([
    syncOn(sql.a, clients[0], subs[0] as string),
    syncOn(sql.b, clients[1], subs[1] as string),
  ]);
  const seen = (await service.recorded()).slice(before);
  return { progress, seen };
}

describe('two replicas syncing at once against a published rate limit', () => {
  it('keep to it together when each keeps to its part by the roll of replicas alive: never turned away', async () => {
    const clients = [
      testClient(service.url, { rateLimit: LIMIT }).client,
      testClient(service.url, { rateLimit: LIMIT }).client,
    ] as [UpstreamClient, UpstreamClient];
    const sharing = clients.map((client, i) =>
      shareThePublishedLimit({
        roll: new SqlReplicaRoll(i === 0 ? sql.a : sql.b),
        pace: client.pace as NonNullable<UpstreamClient['pace']>,
        logger: silentLogger,
        leaseMs: LEASE_MS,
      }),
    );
    try {
      await Promise.all(sharing.map((s) => s.ready));
      // The first to beat hears of the second at its next beat.
      await expect
        .poll(() => clients.map((c) => c.pace?.state().replicas), { timeout: LEASE_MS * 2 })
        .toEqual([2, 2]);
      const { progress, seen } = await bothAtOnce(clients);
      expect(progress.map((p) => p.daysDone)).toEqual([INDEX_HISTORY_DAYS, INDEX_HISTORY_DAYS]);
      // Long enough to pass the burst several times over, and not once turned away.
      expect(seen.length).toBeGreaterThan(LIMIT.burst * 4);
      expect(seen.filter((s) => s.status === 429)).toEqual([]);
      expect(clients.map((c) => c.pace?.state().busy)).toEqual([0, 0]);
    } finally {
      await Promise.all(sharing.map((s) => s.stop()));
      await Promise.all(clients.map((c) => c.close()));
    }
  }, 90_000);

  it('without the roll, each replica walks at the whole share and the two together are turned away', async () => {
    const clients = [
      testClient(service.url, { rateLimit: LIMIT }).client,
      testClient(service.url, { rateLimit: LIMIT }).client,
    ] as [UpstreamClient, UpstreamClient];
    try {
      const { progress, seen } = await bothAtOnce(clients);
      // Slowed by the 429s, not failed.
      expect(progress.map((p) => p.daysDone)).toEqual([INDEX_HISTORY_DAYS, INDEX_HISTORY_DAYS]);
      expect(seen.filter((s) => s.status === 429).length).toBeGreaterThan(0);
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
  }, 90_000);
});
