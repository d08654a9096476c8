// What a transaction index holds, read straight from its database while no BFF has it open:
// its rows and its walked days (`index_sync_day`), and the pages a stopped sync kept of the
// ranges it had open (`index_sync_range_page`). For the remote card service benchmark's
// killed-and-resumed sync: how much of the walk before the kill reached the database.
import { join } from 'node:path';
import pg from 'pg';
import { embeddedEngine, postgresEngine, type SqlEngine } from '../src/platform/sql/sql-engine';

export interface IndexHeld {
  rows: number;
  days: number;
  /** Pages kept of open ranges, their rows, and the ranges. */
  keptPages: number;
  keptRows: number;
  openRanges: number;
}

async function held(engine: SqlEngine): Promise<IndexHeld> {
  try {
    const [counts] = await engine.query<IndexHeld>(
      `SELECT (SELECT count(*) FROM index_transaction)::int AS rows,
              (SELECT count(*) FROM index_sync_day)::int AS days,
              (SELECT count(*) FROM index_sync_range_page)::int AS "keptPages",
              (SELECT coalesce(sum(json_array_length(rows::json)), 0)
                 FROM index_sync_range_page)::int AS "keptRows",
              (SELECT count(DISTINCT (sub_account_id, from_ms))
                 FROM index_sync_range_page)::int AS "openRanges"`,
    );
    return counts ?? { rows: 0, days: 0, keptPages: 0, keptRows: 0, openRanges: 0 };
  } finally {
    await engine.close();
  }
}

/** The index in PostgreSQL at `url`. */
export const postgresIndexHeld = (url: string) =>
  held(postgresEngine(new pg.Pool({ connectionString: url, max: 1 })));

/** The embedded index under a BFF's DATA_DIR (its process gone). */
export const embeddedIndexHeld = async (dataDir: string) =>
  held(await embeddedEngine(join(dataDir, 'transaction-index')));
