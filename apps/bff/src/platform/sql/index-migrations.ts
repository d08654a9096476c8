// The transaction index's schema (and the notes', people's and alerts' beside it): SQL files in
// apps/bff/migrations/transaction-index, applied by node-pg-migrate on either engine, in one
// transaction, recorded in their own table (apart from the audit trail's, whose role may not
// change them). On PostgreSQL `pnpm migrate` applies them as the schema owner; the embedded
// engine, one process, applies them itself when it opens.
import { join } from 'node:path';
import { runner } from 'node-pg-migrate';
import type { Logger } from 'pino';
import { knownMigrations, migrationsDir } from '../audit/audit-schema';
import {
  appliedMigrations,
  type MigrationMismatch,
  migrationMismatch,
} from '../migrations/migration-versions';
import type { SqlEngine, SqlQueryable } from './sql-engine';

export const INDEX_MIGRATIONS_TABLE = 'index_migrations';

export function indexMigrationsDir(): string {
  return join(migrationsDir(), 'transaction-index');
}

/**
 * Whether the index's schema as `engine` holds it differs from this build's (behind, or
 * migrated by a newer build); `where` names the database in the message.
 */
export async function indexSchemaMismatch(
  engine: SqlQueryable,
  where: string,
): Promise<MigrationMismatch | undefined> {
  return migrationMismatch(
    'transaction index',
    where,
    await knownMigrations(indexMigrationsDir()),
    await appliedMigrations((sql) => engine.query(sql), INDEX_MIGRATIONS_TABLE),
  );
}

/**
 * Applies what is missing and returns the names applied. On PostgreSQL two runs at once queue
 * on node-pg-migrate's advisory lock; the embedded engine has one process only. A schema a
 * newer build migrated is refused before anything runs.
 */
export async function applyIndexMigrations(
  engine: SqlEngine,
  logger: Pick<Logger, 'info' | 'error'>,
  where = engine.kind === 'embedded' ? 'DATA_DIR' : 'DATABASE_MIGRATION_URL',
): Promise<string[]> {
  const mismatch = await indexSchemaMismatch(engine, where);
  if (mismatch && !mismatch.behind) throw new Error(mismatch.message);
  const log = (message: string) => logger.info({ migrations: 'transaction-index' }, message);
  const applied = await engine.withMigrationClient((dbClient) =>
    runner({
      dbClient: dbClient as never,
      dir: indexMigrationsDir(),
      migrationsTable: INDEX_MIGRATIONS_TABLE,
      direction: 'up',
      checkOrder: true,
      singleTransaction: true,
      noLock: engine.kind === 'embedded',
      ...(engine.kind === 'postgres' ? { advisoryLockMode: 'wait' as const } : {}),
      logger: { debug: () => {}, info: log, warn: log, error: (m: string) => logger.error(m) },
    }),
  );
  return applied.map((m) => m.name);
}
