// What the composition root calls when DATABASE_URL is set: the pool as the BFF's own role, the
// start-up checks (the schema is this build's, the role may only insert and select), and the
// store, its readiness probe and its shutdown. Migrations are `pnpm migrate`'s, never a replica's.
import pg from 'pg';
import type { Logger } from 'pino';
import type { Metrics } from '../metrics/metrics';
import { AuditSetupError, assertSchemaCurrent, assertWriterOnly } from './audit-schema';
import { PostgresAuditStore } from './postgres-audit-store';
import { keepClientErrorsHandled, postgresFailure } from './postgres-errors';

export interface PostgresAudit {
  store: PostgresAuditStore;
  /** For /readyz: resolves when PostgreSQL answers, else throws StoreUnavailableError. */
  readiness: { name: 'postgres'; check(): Promise<void> };
  /** Ends the pool's connections (after in-flight queries). */
  close(): Promise<void>;
}

/**
 * A pool whose calls fail fast when PostgreSQL is down or stuck (never a hang): connecting or
 * waiting for a free connection 3 s, a statement 5 s on the server, 8 s on our side of the
 * socket; an append's lock is never held past 10 s idle in its transaction. A connection that
 * breaks is dropped and the next call opens a new one, so the pool recovers by itself.
 */
export function createAuditPool(url: string, logger: Logger, max = 10): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    connectionTimeoutMillis: 3_000,
    idleTimeoutMillis: 30_000,
    statement_timeout: 5_000,
    lock_timeout: 5_000,
    query_timeout: 8_000,
    idle_in_transaction_session_timeout: 10_000,
    keepAlive: true,
    application_name: 'card-console-bff',
  });
  // An idle connection the server ended (restart, failover): pg drops it; just say so.
  pool.on('error', (error) => logger.warn({ err: error }, 'postgres: idle connection lost'));
  return keepClientErrorsHandled(pool);
}

/** user@host:port/database: a URL to name in a message, never with its password. */
export function describeDatabaseUrl(url: string): string {
  const u = new URL(url);
  return `${decodeURIComponent(u.username) || '(default user)'}@${u.host}${u.pathname}`;
}

export async function connectPostgresAudit(options: {
  url: string;
  logger: Logger;
  metrics?: Metrics;
  poolSize?: number;
  /**
   * The other schemas in the same database (the index's), checked with the
   * same pool before start-up goes on: a schema behind or ahead of this build stops it.
   */
  schemaChecks?: readonly ((pool: pg.Pool) => Promise<void>)[];
}): Promise<PostgresAudit> {
  const { url, logger } = options;
  const pool = createAuditPool(url, logger, options.poolSize);
  try {
    await pool.query('SELECT 1').catch((error: unknown) => {
      throw new AuditSetupError(
        `PostgreSQL at ${describeDatabaseUrl(url)} (DATABASE_URL) did not answer: ${(error as Error).message}`,
        { cause: error },
      );
    });
    await assertSchemaCurrent(pool);
    await assertWriterOnly(pool);
    for (const check of options.schemaChecks ?? []) await check(pool);
  } catch (error) {
    await pool.end().catch(() => {});
    throw error;
  }
  return {
    store: new PostgresAuditStore(pool, options.metrics),
    readiness: {
      name: 'postgres',
      check: async () => {
        // A probe answers within 2 s (a connection, if one must be opened, within 3 s).
        // node-postgres reads a per-query `query_timeout`; its types do not list it.
        const probe = { text: 'SELECT 1', query_timeout: 2_000 } as pg.QueryConfig;
        await pool.query(probe).catch((error: unknown) => {
          throw postgresFailure(error, 'readiness check');
        });
      },
    },
    close: () => pool.end(),
  };
}
