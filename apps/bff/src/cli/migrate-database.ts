// `pnpm migrate`, without the process around it: every migration set of the database the
// replicas share, applied as the schema owner, in order: the audit trail, then the transaction
// index (with the notes, people and alerts, their delivery outbox included, beside it). Each set
// refuses a database a newer build migrated before changing anything. A `pgboss` schema an
// earlier build made is left as it is (docs/operations: it may be dropped).
import type { Logger } from 'pino';
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
  return { lines };
}
