import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migratedMemoryEngine } from '../../test/engines/embedded';
import {
  postgresReplicas,
  type SqlReplicas,
  unreachablePostgres,
} from '../../test/engines/sql-replicas';
import type { SqlEngine } from '../sql/sql-engine';
import { StoreUnavailableError } from '../store-unavailable';
import { exportReceiptsContract } from './export-receipts.contract';
import { SqlExportReceipts } from './sql-export-receipts';

// Each replica logs in holding card_console_index_writer only, as the BFF does.
let postgres: SqlReplicas;
let one: SqlEngine;
let two: SqlEngine;
let embedded: SqlEngine;
beforeAll(async () => {
  [postgres, embedded] = await Promise.all([postgresReplicas(), migratedMemoryEngine()]);
  one = postgres.a;
  two = postgres.b;
}, 120_000);
afterAll(async () => {
  await Promise.all([postgres?.close(), embedded?.close()]);
});

// Two pools on one database: two replicas.
exportReceiptsContract(
  'SqlExportReceipts on PostgreSQL',
  (options) => new SqlExportReceipts(one, options),
  {
    replicas: () => [new SqlExportReceipts(one), new SqlExportReceipts(two)],
  },
);

exportReceiptsContract(
  'SqlExportReceipts on the embedded engine',
  (options) => new SqlExportReceipts(embedded, options),
);

describe('SqlExportReceipts', () => {
  const rows = (engine: SqlEngine) =>
    engine.query<{ person: string; request_id: string; ms: number }>(
      `SELECT person, request_id,
              extract(epoch FROM expires_at - clock_timestamp())::float8 * 1000 AS ms
         FROM export_receipt WHERE person LIKE '%@expiry.test' ORDER BY request_id`,
    );

  it('keeps each receipt with an expiry by the database clock, never for ever, and a later record deletes lapsed ones', async () => {
    const receipts = new SqlExportReceipts(one, { ttlMs: 60_000 });
    await receipts.record('ada@expiry.test', 'req-00000001', { rows: 1, bytes: 10 });
    const [kept] = await rows(one);
    expect(kept?.ms).toBeGreaterThan(50_000);
    expect(kept?.ms).toBeLessThanOrEqual(60_000);

    const brief = new SqlExportReceipts(two, { ttlMs: 1 });
    await brief.record('bob@expiry.test', 'req-00000002', { rows: 2, bytes: 20 });
    await brief.record('cy@expiry.test', 'req-00000003', { rows: 3, bytes: 30 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    await receipts.record('dee@expiry.test', 'req-00000004', { rows: 4, bytes: 40 });
    expect((await rows(one)).map((r) => r.request_id)).toEqual(['req-00000001', 'req-00000004']);
  });

  it('deletes lapsed receipts a bounded batch at a time', async () => {
    await one.query(
      `INSERT INTO export_receipt
       SELECT 'eve@sweep.test', 'req-' || i, i, i, clock_timestamp() - interval '1 second'
         FROM generate_series(1, 5) AS i`,
    );
    await new SqlExportReceipts(one, { sweepBatch: 2 }).record('fay@sweep.test', 'req-1', {
      rows: 1,
      bytes: 1,
    });
    const [left] = await one.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM export_receipt WHERE person = 'eve@sweep.test'`,
    );
    expect(left?.n).toBe(3);
  });

  it('a row past what a receipt can hold is no receipt', async () => {
    await one.query(
      `INSERT INTO export_receipt VALUES ('ada@example.test', 'req-huge', 9007199254740993, 1, clock_timestamp() + interval '1 minute')`,
    );
    expect(await new SqlExportReceipts(two).find('ada@example.test', 'req-huge')).toBeUndefined();
  });

  it('without a database, recording and finding fail with StoreUnavailableError', async () => {
    const down = await unreachablePostgres();
    const receipts = new SqlExportReceipts(down);
    try {
      for (const attempt of [
        receipts.record('ada@example.test', 'req-00000001', { rows: 1, bytes: 1 }),
        receipts.find('ada@example.test', 'req-00000001'),
      ]) {
        const error = await attempt.then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(StoreUnavailableError);
        expect((error as StoreUnavailableError).engine).toBe('postgres');
      }
    } finally {
      await down.close();
    }
  });
});
