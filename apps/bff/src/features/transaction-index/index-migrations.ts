// The transaction index's schema: SQL files in apps/bff/migrations/transaction-index, applied
// by node-pg-migrate on either engine, in one transaction, recorded in their own table (apart
// from the audit trail's, whose role may not change them).
import { join } from 'node:path';
import { runner } from 'node-pg-migrate';
import type { Logger } from 'pino';
import { migrationsDir } from '../../platform/audit/audit-schema';
import type { SqlEngine } from './sql-engine';

export const INDEX_MIGRATIONS_TABLE = 'index_migrations';

export function indexMigrationsDir(): string {
  return join(migrationsDir(), 'transaction-index');
}

/**
 * Applies what is missing and returns the names applied. On PostgreSQL replicas starting at
 * once queue on node-pg-migrate's advisory lock; the embedded engine has one process only.
 */
export async function applyIndexMigrations(
  engine: SqlEngine,
  logger: Pick<Logger, 'info' | 'error'>,
): Promise<string[]> {
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
