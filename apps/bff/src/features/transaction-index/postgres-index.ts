// The transaction index on PostgreSQL (DATABASE_URL), as the composition root opens it: the
// migrations applied as the schema owner when DATABASE_MIGRATION_URL is set (as the audit
// trail's are), then a pool as the BFF's own login, which must hold card_console_index_writer.
import pg from 'pg';
import type { Logger } from 'pino';
import { createAuditPool, describeDatabaseUrl } from '../../platform/audit/postgres-audit';
import { applyIndexMigrations } from './index-migrations';
import { postgresEngine, type SqlEngine } from './sql-engine';

export const INDEX_WRITER_ROLE = 'card_console_index_writer';

/** The index cannot be used with this database; the message says what to do. */
export class IndexSetupError extends Error {
  override name = 'IndexSetupError';
}

export async function openPostgresIndex(options: {
  url: string;
  migrationUrl?: string | undefined;
  logger: Logger;
}): Promise<SqlEngine> {
  const { url, migrationUrl, logger } = options;
  if (migrationUrl) {
    const owner = postgresEngine(
      new pg.Pool({ connectionString: migrationUrl, max: 1, connectionTimeoutMillis: 5_000 }),
    );
    try {
      await applyIndexMigrations(owner, logger);
    } finally {
      await owner.close();
    }
  }
  const engine = postgresEngine(createAuditPool(url, logger, 4));
  try {
    // Every table of the latest migration there (an upgrade whose migrations were not applied
    // is told to apply them), and each writable by this login.
    const tables = [
      'index_transaction',
      'index_sync_day',
      'index_hour_tally',
      'index_day_key_tally',
      'index_month_key_tally',
    ];
    const [state] = await engine.query<{ present: boolean; allowed: boolean }>(
      `SELECT bool_and(to_regclass(t) IS NOT NULL) AS present,
              bool_and(CASE WHEN to_regclass(t) IS NULL THEN false
                            ELSE has_table_privilege(t, 'SELECT, INSERT, UPDATE, DELETE') END) AS allowed
         FROM unnest($1::text[]) AS t`,
      [tables],
    );
    if (!state?.present) {
      throw new IndexSetupError(
        `The transaction index's schema is not in ${describeDatabaseUrl(url)} (DATABASE_URL): set DATABASE_MIGRATION_URL to the schema owner's URL so start-up applies its migrations (docs/operations/audit-trail.md, "PostgreSQL").`,
      );
    }
    if (!state.allowed) {
      throw new IndexSetupError(
        `DATABASE_URL's role may not write the transaction index: grant it ${INDEX_WRITER_ROLE} (docs/operations/audit-trail.md, "PostgreSQL").`,
      );
    }
  } catch (error) {
    await engine.close().catch(() => {});
    throw error;
  }
  return engine;
}
