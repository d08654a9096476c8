// `pnpm migrate`, without the process around it: every migration of the database the replicas
// share (the audit trail's, the transaction index's with the notes, people and alerts beside
// it), applied as the schema owner by the one runner (platform/sql/migrations.ts), in the order
// of their timestamps, recorded in one table. A database a newer build migrated is refused
// before anything changes; one an older build migrated has its two tables' rows moved first. A
// `pgboss` schema an earlier build made is left as it is (docs/operations: it may be dropped).
import type { Logger } from 'pino';
import { applyMigrations, MigrationRefusedError } from '../platform/sql/migrations';
import { postgresEngine } from '../platform/sql/sql-engine';

export interface MigrationReport {
  /** What was applied, or that the schema was current. */
  lines: string[];
}

export async function migrateDatabase(
  migrationUrl: string,
  logger: Pick<Logger, 'info' | 'error'>,
): Promise<MigrationReport> {
  const { default: pg } = await import('pg');
  const owner = postgresEngine(
    new pg.Pool({
      connectionString: migrationUrl,
      max: 1,
      connectionTimeoutMillis: 5_000,
      application_name: 'card-console-migrations',
    }),
  );
  try {
    const names = await applyMigrations(owner, logger);
    return {
      lines: [
        names.length === 0
          ? 'Migrations: current, nothing to apply'
          : `Migrations: applied ${names.join(', ')}`,
      ],
    };
  } catch (error) {
    if (error instanceof MigrationRefusedError) throw error;
    throw new Error(
      `Applying the migrations through DATABASE_MIGRATION_URL failed: ${(error as Error).message}`,
      { cause: error },
    );
  } finally {
    await owner.close();
  }
}
