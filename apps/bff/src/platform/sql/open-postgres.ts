// The database on PostgreSQL (DATABASE_URL), as the composition root opens it: a pool as the
// BFF's own login, which must hold card_console_index_writer, on a schema `pnpm migrate` made
// (as the schema owner) and that this build knows: never migrated by a replica. Loaded only
// when configured: a deployment on the embedded engine never holds `pg` (decision 0004).
import type pg from 'pg';
import type { Logger } from 'pino';
import { createAuditPool, describeDatabaseUrl } from '../audit/postgres-audit';
import { indexSchemaMismatch } from './index-migrations';
import { postgresEngine, type SqlEngine } from './sql-engine';

export const INDEX_WRITER_ROLE = 'card_console_index_writer';

/** The index cannot be used with this database; the message says what to do. */
export class IndexSetupError extends Error {
  override name = 'IndexSetupError';
}

/**
 * Start-up's check, on the audit trail's pool: refuses (IndexSetupError) a schema behind or
 * ahead of this build. A login not yet granted the writer role cannot read the migrations'
 * table: that is left to the index's first use, which names the grant (and answers 503 until).
 */
export async function assertIndexSchemaCurrent(pool: pg.Pool): Promise<void> {
  const mismatch = await indexSchemaMismatch(
    { query: async (text, params) => (await pool.query(text, params as unknown[])).rows },
    'DATABASE_URL',
  ).catch((error: unknown) => {
    if ((error as { code?: string }).code === '42501') return undefined;
    throw error;
  });
  if (mismatch) throw new IndexSetupError(mismatch.message);
}

export async function openPostgresIndex(options: {
  url: string;
  logger: Logger;
}): Promise<SqlEngine> {
  const { url, logger } = options;
  const engine = postgresEngine(createAuditPool(url, logger, 4));
  try {
    // Every table of the latest migration there, and each writable by this login.
    const tables = [
      'index_transaction',
      'index_sync_day',
      'index_hour_tally',
      'index_day_key_tally',
      'index_month_key_tally',
      'index_sync_range_page',
      // What the replicas share beside it (platform/sql/shared-stores.ts).
      'session_record',
      'one_time_value',
      'used_totp_step',
      'rate_limit_counter',
      'export_slot',
      'export_receipt',
      'person_factors',
      'person_passkey',
      'insights_day_series',
      'insights_day',
      'background_job',
      'replica_lease',
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
        `The transaction index's schema is not in ${describeDatabaseUrl(url)} (DATABASE_URL): run \`pnpm migrate\` with DATABASE_MIGRATION_URL set to the schema owner's URL (docs/operations/audit-trail.md, "Migrations").`,
      );
    }
    if (!state.allowed) {
      throw new IndexSetupError(
        `DATABASE_URL's role may not write the transaction index: grant it ${INDEX_WRITER_ROLE} (docs/operations/audit-trail.md, "PostgreSQL").`,
      );
    }
    const mismatch = await indexSchemaMismatch(engine, describeDatabaseUrl(url));
    if (mismatch) throw new IndexSetupError(mismatch.message);
  } catch (error) {
    await engine.close().catch(() => {});
    throw error;
  }
  return engine;
}
