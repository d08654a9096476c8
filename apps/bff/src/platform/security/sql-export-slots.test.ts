import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migratedMemoryEngine } from '../../test/engines/embedded';
import {
  postgresReplicas,
  type SqlReplicas,
  unreachablePostgres,
} from '../../test/engines/sql-replicas';
import type { SqlEngine } from '../sql/sql-engine';
import { StoreUnavailableError } from '../store-unavailable';
import type { ExportCaps, ExportSlots } from './export-slots';
import { exportSlotsContract } from './export-slots.contract';
import { SqlExportSlots } from './sql-export-slots';

// Each replica logs in holding card_console_index_writer only, as the BFF does.
let postgres: SqlReplicas;
let one: SqlEngine;
let two: SqlEngine;
let embedded: SqlEngine;
const replica = (max = 4) => postgres.replica(max);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
beforeAll(async () => {
  [postgres, embedded] = await Promise.all([postgresReplicas(), migratedMemoryEngine()]);
  one = postgres.a;
  two = postgres.b;
}, 120_000);
afterAll(async () => {
  await Promise.all([postgres?.close(), embedded?.close()]);
});

// Every test starts from no slots: the caps count the whole table.
const fresh = async (engine: SqlEngine) => {
  await engine.query('DELETE FROM export_slot');
};

/**
 * Slots over `engines` that start from none: the caps count the whole table, and each
 * contract test expects a store of its own (Redis's had a fresh prefix).
 */
function isolated(caps: ExportCaps, ...engines: SqlEngine[]): ExportSlots[] {
  const emptied = fresh(engines[0] as SqlEngine);
  return engines.map((engine) => {
    const slots = new SqlExportSlots(engine, caps);
    return {
      async acquire(person: string) {
        await emptied;
        return slots.acquire(person);
      },
    };
  });
}

// Two pools on one database: two replicas.
exportSlotsContract(
  'SqlExportSlots on PostgreSQL',
  (caps) => isolated(caps, one)[0] as ExportSlots,
  {
    replicas: (caps) => isolated(caps, one, two) as [ExportSlots, ExportSlots],
  },
);
exportSlotsContract(
  'SqlExportSlots on the embedded engine',
  (caps) => isolated(caps, embedded)[0] as ExportSlots,
);

describe('SqlExportSlots', () => {
  it('a slot held by a replica that vanished is free again once its lease lapses, by the database clock', async () => {
    await fresh(one);
    const doomed = replica(1);
    const caps = { perPerson: 1, total: 1, lifetimeMs: 60_000 };
    const gone = await new SqlExportSlots(doomed, caps, { leaseMs: 400 }).acquire(
      'ada@example.test',
    );
    expect(gone.granted).toBe(true);
    await doomed.close(); // dies holding it: no release or renewal reaches the database
    const survivor = new SqlExportSlots(two, caps, { leaseMs: 400 });
    expect(await survivor.acquire('bob@example.test')).toEqual({ granted: false, full: 'total' });
    const [row] = await two.query<{ ms: number }>(
      'SELECT extract(epoch FROM lease_until - clock_timestamp())::float8 * 1000 AS ms FROM export_slot',
    );
    expect(row?.ms).toBeGreaterThan(0);
    expect(row?.ms).toBeLessThanOrEqual(400);
    await sleep(450);
    const next = await survivor.acquire('bob@example.test');
    expect(next.granted).toBe(true);
    if (next.granted) await next.release();
  });

  it('a running export renews its lease: held past several leases, it still fills the cap; at its lifetime it is free', async () => {
    await fresh(one);
    const caps = { perPerson: 1, total: 1, lifetimeMs: 1_500 };
    const holder = new SqlExportSlots(one, caps, { leaseMs: 300 });
    const other = new SqlExportSlots(two, caps, { leaseMs: 300 });
    const held = await holder.acquire('ada@example.test');
    expect(held.granted).toBe(true);
    // Two and a half leases: renewed every third of one, the lease never lapses; renewed any
    // less often than once a lease, it would have lapsed by now whenever the renewal falls.
    await sleep(750);
    expect(await other.acquire('bob@example.test')).toEqual({ granted: false, full: 'total' });
    await sleep(950); // past the lifetime: renewals stop at it
    const next = await other.acquire('bob@example.test');
    expect(next.granted).toBe(true);
    if (next.granted) await next.release();
    if (held.granted) await held.release();
  });

  it('200 acquisitions at once over four replicas never pass either cap, and all are free once released', async () => {
    await fresh(one);
    const engines = [one, two, replica(), replica()];
    const caps = { perPerson: 3, total: 7 };
    const people = ['a', 'b', 'c', 'd', 'e'].map((p) => `${p}@example.test`);
    try {
      const slots = engines.map((engine) => new SqlExportSlots(engine, caps));
      const asked = Array.from({ length: 200 }, (_, i) => people[i % people.length] as string);
      const results = await Promise.all(
        asked.map((person, i) => (slots[i % slots.length] as SqlExportSlots).acquire(person)),
      );
      const grants = asked.filter((_, i) => results[i]?.granted);
      expect(grants).toHaveLength(7);
      for (const person of people) {
        expect(grants.filter((p) => p === person).length).toBeLessThanOrEqual(3);
      }
      await Promise.all(results.map((r) => (r.granted ? r.release() : undefined)));
      const [left] = await one.query<{ n: number }>('SELECT count(*)::int AS n FROM export_slot');
      expect(left?.n).toBe(0);
    } finally {
      await Promise.all(engines.slice(2).map((e) => e.close()));
    }
  });

  it('without a database a slot is refused with StoreUnavailableError', async () => {
    const down = await unreachablePostgres();
    try {
      const error = await new SqlExportSlots(down, { perPerson: 1, total: 1 })
        .acquire('ada@example.test')
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(error).toBeInstanceOf(StoreUnavailableError);
    } finally {
      await down.close();
    }
  });

  it('a release that cannot reach the database still resolves', async () => {
    await fresh(one);
    const doomed = replica(1);
    const slot = await new SqlExportSlots(doomed, { perPerson: 1, total: 1 }).acquire(
      'ada@example.test',
    );
    await doomed.close();
    if (!slot.granted) throw new Error('expected a slot');
    await expect(slot.release()).resolves.toBeUndefined();
    await fresh(one);
  });
});
