// `pnpm migrate`, without the process around it: every migration set of the database the
// replicas share, applied as the schema owner, in order: the audit trail, the transaction index
// (with the notes, people and alerts beside it), then the alert queue (pg-boss's schema and
// queue). Each set refuses a database a newer build migrated before changing anything.
import type { Logger } from 'pino';
import { setUpAlertQueue } from '../features/alerts/alert-queue-schema';
import { applyAuditMigrations } from '../platform/audit/audit-schema';
import { applyIndexMigrations } from '../platform/sql/index-migrations';
import { postgresEngine } from '../platform/sql/sql-engine';

export interface MigrationReport {
  /** One line per set: what was applied, or that it was current. */
  lines: string[];
}

const applied = (set: string, names: string[]) =>
  names.length === 0 ? `${set}: current, nothing to apply` : `${set}: applied ${names.join(', ')}`;

export async function migrateDatabase(
  migrationUrl: string,
  logger: Pick<Logger, 'info' | 'error'>,
): Promise<MigrationReport> {
  const lines = [applied('audit trail', await applyAuditMigrations(migrationUrl, logger))];
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
    lines.push(applied('transaction index', await applyIndexMigrations(owner, logger)));
  } finally {
    await owner.close();
  }
  const version = await setUpAlertQueue(migrationUrl, logger);
  lines.push(`alert queue: pg-boss schema version ${version}, queue ready`);
  return { lines };
}
