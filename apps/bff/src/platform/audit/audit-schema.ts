// The audit trail's schema: migrations applied by the schema owner through `pnpm migrate`
// (node-pg-migrate, SQL files in apps/bff/migrations), and the checks start-up makes as the
// BFF's own role: the schema is the one this build knows (not behind, not newer), and the role
// may insert and select but never change or delete a record (append-only in fact, not by
// convention).
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runner } from 'node-pg-migrate';
import pg from 'pg';
import type { Logger } from 'pino';
import {
  appliedMigrations,
  migrationMismatch,
  migrationOrder,
} from '../migrations/migration-versions';
import { postgresFailure } from './postgres-errors';

export const WRITER_ROLE = 'card_console_audit_writer';
const MIGRATIONS_TABLE = 'pgmigrations';
const SET = 'audit trail';

/** Start-up cannot go on with this database; the message says what to do. */
export class AuditSetupError extends Error {
  override name = 'AuditSetupError';
}

/**
 * apps/bff/migrations, found from this module's place: src/platform/audit under tsx, dist/
 * in the bundle `pnpm start` runs.
 */
export function migrationsDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'migrations');
    if (existsSync(join(dir, 'package.json')) && existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('apps/bff/migrations not found');
    dir = parent;
  }
}

/** The migrations this build needs, in the order node-pg-migrate applies them. */
export async function knownMigrations(dir = migrationsDir()): Promise<string[]> {
  return (await readdir(dir))
    .filter((name) => name.endsWith('.sql') && !name.startsWith('.'))
    .map((name) => name.slice(0, -'.sql'.length))
    .sort(migrationOrder);
}

/**
 * Applies what is missing as the schema owner (`pnpm migrate`), in one transaction. Two runs at
 * once queue on node-pg-migrate's advisory lock; the later finds nothing to do. A database a
 * newer build migrated is refused before anything runs.
 */
export async function applyAuditMigrations(
  migrationUrl: string,
  logger: Pick<Logger, 'info' | 'error'>,
): Promise<string[]> {
  const log = (message: string) => logger.info({ migrations: 'audit-trail' }, message);
  const client = new pg.Client({
    connectionString: migrationUrl,
    connectionTimeoutMillis: 5_000,
    statement_timeout: 60_000,
    application_name: 'card-console-migrations',
  });
  try {
    await client.connect();
    const mismatch = migrationMismatch(
      SET,
      'DATABASE_MIGRATION_URL',
      await knownMigrations(),
      await appliedMigrations(async (sql) => (await client.query(sql)).rows, MIGRATIONS_TABLE),
    );
    if (mismatch && !mismatch.behind) throw new AuditSetupError(mismatch.message);
    const applied = await runner({
      dbClient: client,
      dir: migrationsDir(),
      migrationsTable: MIGRATIONS_TABLE,
      direction: 'up',
      checkOrder: true,
      singleTransaction: true,
      advisoryLockMode: 'wait',
      logger: { debug: log, info: log, warn: log, error: (m: string) => logger.error(m) },
    });
    return applied.map((m) => m.name);
  } catch (error) {
    if (error instanceof AuditSetupError) throw error;
    throw new AuditSetupError(
      `Applying the audit trail's migrations through DATABASE_MIGRATION_URL failed: ${(error as Error).message}`,
      { cause: error },
    );
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * Refuses (AuditSetupError) unless the schema is exactly the one this build knows: behind, it
 * says to run `pnpm migrate`; newer (a later build migrated it), it says so.
 */
export async function assertSchemaCurrent(pool: pg.Pool): Promise<void> {
  let applied: string[];
  try {
    applied = await appliedMigrations(
      async (sql) => (await pool.query(sql)).rows,
      MIGRATIONS_TABLE,
    );
  } catch (error) {
    if ((error as { code?: string }).code === '42501') {
      throw new AuditSetupError(
        `DATABASE_URL's role may not read ${MIGRATIONS_TABLE}: grant it ${WRITER_ROLE} (docs/operations/audit-trail.md, "PostgreSQL").`,
      );
    }
    throw postgresFailure(error, 'audit schema check');
  }
  const mismatch = migrationMismatch(SET, 'DATABASE_URL', await knownMigrations(), applied);
  if (mismatch) throw new AuditSetupError(mismatch.message);
}

/** Refuses (AuditSetupError) unless the role may insert and select, and nothing more. */
export async function assertWriterOnly(pool: pg.Pool): Promise<void> {
  const { rows } = await pool
    .query<Record<'role' | 'insert' | 'select' | 'update' | 'delete' | 'truncate', string>>(
      `SELECT current_user AS role,
        has_table_privilege('audit_record', 'INSERT') AS insert,
        has_table_privilege('audit_record', 'SELECT') AS select,
        has_table_privilege('audit_record', 'UPDATE') AS update,
        has_table_privilege('audit_record', 'DELETE') AS delete,
        has_table_privilege('audit_record', 'TRUNCATE') AS truncate`,
    )
    .catch((error: unknown) => {
      throw postgresFailure(error, 'audit privilege check');
    });
  const may = rows[0] as unknown as Record<string, boolean> & { role: string };
  if (!may.insert || !may.select) {
    throw new AuditSetupError(
      `DATABASE_URL's role ${may.role} may not insert into and read the audit trail: grant it ${WRITER_ROLE} (docs/operations/audit-trail.md, "PostgreSQL").`,
    );
  }
  const extra = ['update', 'delete', 'truncate'].filter((p) => may[p]);
  if (extra.length > 0) {
    throw new AuditSetupError(
      `DATABASE_URL's role ${may.role} may ${extra.join(', ')} audit records; the BFF must use a login that holds only ${WRITER_ROLE} (docs/operations/audit-trail.md, "PostgreSQL").`,
    );
  }
}
