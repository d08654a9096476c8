// The transaction index's set (and the notes', people's and alerts' beside it), as callers that
// want that set alone ask for it: one runner and one table for every set (./migrations.ts).
import type { Logger } from 'pino';
import type { MigrationMismatch } from '../migrations/migration-versions';
import { applyMigrations, MIGRATIONS_TABLE, schemaMismatch, setDir } from './migrations';
import type { SqlEngine, SqlQueryable } from './sql-engine';

/** The one table every set is recorded in (the name is kept for the callers that had it). */
export const INDEX_MIGRATIONS_TABLE = MIGRATIONS_TABLE;

export function indexMigrationsDir(): string {
  return setDir('transaction-index');
}

/**
 * Whether the index's set as `engine` holds it differs from this build's (behind, or migrated by
 * a newer build); `where` names the database in the message.
 */
export function indexSchemaMismatch(
  engine: SqlQueryable,
  where: string,
): Promise<MigrationMismatch | undefined> {
  return schemaMismatch((sql) => engine.query(sql), ['transaction-index'], where);
}

/** Applies what the index's set is missing (./migrations.ts `applyMigrations`). */
export function applyIndexMigrations(
  engine: SqlEngine,
  logger: Pick<Logger, 'info' | 'error'>,
  where?: string,
): Promise<string[]> {
  return applyMigrations(engine, logger, {
    sets: ['transaction-index'],
    ...(where === undefined ? {} : { where }),
  });
}
