// Two replicas on one PostgreSQL database, as the BFF runs them: the schema applied by its
// owner, each replica a pool of its own logged in as a login holding card_console_index_writer
// and nothing else (so a missing GRANT fails the test). And the embedded engine, one process.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { applyIndexMigrations } from '../../platform/sql/index-migrations';
import { postgresEngine, type SqlEngine } from '../../platform/sql/sql-engine';
import { silentLogger } from '../audit-cluster';
import { migratedMemoryEngine } from './embedded';
import { freePort } from './free-port';
import { testDatabase } from './postgres';

export interface SqlReplicas {
  a: SqlEngine;
  b: SqlEngine;
  /** The schema's owner (a superuser): to set up or inspect rows behind the stores' backs. */
  owner: SqlEngine;
  /** One more replica's pool, as the same login; the caller closes it. */
  replica(max?: number): SqlEngine;
  close(): Promise<void>;
}

/** Lets real time pass: expiry is on the database's clock. */
export const pass = (ms: number) => sleep(ms);

export async function postgresReplicas(): Promise<SqlReplicas> {
  const database = await testDatabase();
  const owner = postgresEngine(new pg.Pool({ connectionString: database.url, max: 2 }));
  await applyIndexMigrations(owner, silentLogger);
  const login = `cc_app_${randomBytes(6).toString('hex')}`;
  const password = randomBytes(18).toString('base64url');
  // Names and passwords cannot be bound; both are made above of [a-z0-9_-] only.
  await owner.query(
    `CREATE ROLE ${login} LOGIN PASSWORD '${password}' IN ROLE card_console_index_writer`,
  );
  const url = new URL(database.url);
  url.username = login;
  url.password = password;
  const replica = (max = 8) =>
    postgresEngine(new pg.Pool({ connectionString: url.toString(), max }));
  const [a, b] = [replica(), replica()];
  return {
    a,
    b,
    owner,
    replica,
    async close() {
      await Promise.all([a.close(), b.close()]);
      await owner.query(`DROP ROLE ${login}`).catch(() => {});
      await owner.close();
      await database.stop();
    },
  };
}

/**
 * PostgreSQL (two replicas' pools and the owner) and the embedded engine for one test file,
 * opened before its tests and closed after them: read `postgres` and `embedded` in the tests.
 */
export function useBothEngines(): { readonly postgres: SqlReplicas; readonly embedded: SqlEngine } {
  const engines = {} as { postgres: SqlReplicas; embedded: SqlEngine };
  beforeAll(async () => {
    [engines.postgres, engines.embedded] = await Promise.all([
      postgresReplicas(),
      migratedMemoryEngine(),
    ]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([engines.postgres?.close(), engines.embedded?.close()]);
  });
  return engines;
}

/** PostgreSQL where nothing listens: every call fails as the server being down does. */
export async function unreachablePostgres(): Promise<SqlEngine> {
  const port = await freePort();
  return postgresEngine(
    new pg.Pool({ connectionString: `postgres://postgres@127.0.0.1:${port}/none`, max: 1 }),
  );
}
