import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { applyIndexMigrations } from '../../platform/sql/index-migrations';
import { postgresEngine } from '../../platform/sql/sql-engine';
import { silentLogger } from '../../test/audit-cluster';
import { testDatabase } from '../../test/engines/postgres';
import { cardOwnersStoreContract } from './card-owners-store.contract';

let database: Awaited<ReturnType<typeof testDatabase>>;
beforeAll(async () => {
  database = await testDatabase();
}, 60_000);
afterAll(() => database?.stop());

cardOwnersStoreContract('PostgreSQL', async () => {
  const engine = postgresEngine(new pg.Pool({ connectionString: database.url, max: 8 }));
  await applyIndexMigrations(engine, silentLogger);
  return { engine, close: () => engine.close() };
});
