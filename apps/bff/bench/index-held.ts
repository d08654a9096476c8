// What a transaction index holds, read straight from its database while no BFF has it open:
// its rows and its walked days (`index_sync_day`). For the remote card service benchmark's
// killed-and-resumed sync: how much of the walk before the kill reached the index.
import { join } from 'node:path';
import pg from 'pg';
import { embeddedEngine, postgresEngine, type SqlEngine } from '../src/platform/sql/sql-engine';

export interface IndexHeld {
  rows: number;
  days: number;
}

async function held(engine: SqlEngine): Promise<IndexHeld> {
  try {
    const [counts] = await engine.query<IndexHeld>(
      `SELECT (SELECT count(*) FROM index_transaction)::int AS rows,
              (SELECT count(*) FROM index_sync_day)::int AS days`,
    );
    return counts ?? { rows: 0, days: 0 };
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
