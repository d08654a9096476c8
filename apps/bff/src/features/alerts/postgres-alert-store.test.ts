import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { silentLogger } from '../../test/audit-cluster';
import { testDatabase } from '../../test/engines/postgres';
import { applyIndexMigrations } from '../transaction-index/index-migrations';
import { postgresEngine } from '../transaction-index/sql-engine';
import { alertStoreContract } from './alert-store.contract';

let database: Awaited<ReturnType<typeof testDatabase>>;
beforeAll(async () => {
  database = await testDatabase();
}, 60_000);
afterAll(() => database?.stop());

// Two pools on one database, as two replicas would have.
alertStoreContract('PostgreSQL', async () => {
  const engine = postgresEngine(new pg.Pool({ connectionString: database.url, max: 8 }));
  const second = postgresEngine(new pg.Pool({ connectionString: database.url, max: 8 }));
  await applyIndexMigrations(engine, silentLogger);
  return {
    engine,
    second,
    close: async () => {
      await Promise.all([engine.close(), second.close()]);
    },
  };
});
