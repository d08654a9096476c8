// The audit trail's schema: its migrations are one set of the database's (platform/sql/
// migrations.ts, applied by the schema owner through `pnpm migrate`), and these are the checks
// start-up makes as the BFF's own role: the database's schema is the one this build knows (not
// behind, not newer), and the role may insert and select but never change or delete a record
// (append-only in fact, not by convention).
import type pg from 'pg';
import { enginesSets, MIGRATIONS_TABLE, schemaMismatch } from '../sql/migrations';
import { postgresFailure } from './postgres-errors';

export { knownMigrations, migrationsDir } from '../sql/migrations';

export const WRITER_ROLE = 'card_console_audit_writer';

/** Start-up cannot go on with this database; the message says what to do. */
export class AuditSetupError extends Error {
  override name = 'AuditSetupError';
}

/**
 * Refuses (AuditSetupError) unless every set's schema is exactly the one this build knows:
 * behind, it says to run `pnpm migrate`; newer (a later build migrated it), it says so.
 */
export async function assertSchemaCurrent(pool: pg.Pool): Promise<void> {
  let mismatch: Awaited<ReturnType<typeof schemaMismatch>>;
  try {
    mismatch = await schemaMismatch(
      async (sql) => (await pool.query(sql)).rows,
      enginesSets('postgres'),
      'DATABASE_URL',
    );
  } catch (error) {
    if ((error as { code?: string }).code === '42501') {
      throw new AuditSetupError(
        `DATABASE_URL's role may not read ${MIGRATIONS_TABLE}: grant it ${WRITER_ROLE} (docs/operations/audit-trail.md, "PostgreSQL").`,
      );
    }
    throw postgresFailure(error, 'audit schema check');
  }
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
