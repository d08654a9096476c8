// The SQL engine under the transaction index: PostgreSQL (a pg pool, shared by replicas) or the
// embedded engine (PGlite: PostgreSQL compiled to WebAssembly, in this process, persisting to
// a directory). Both take the same SQL, the same migrations and the same store; this is the
// little the store needs of either.
import type pg from 'pg';
import { postgresFailure } from '../../platform/audit/postgres-errors';

/** A statement's rows. Parameters are always bound ($1, $2…), never spliced into the text. */
export interface SqlQueryable {
  query<R extends object>(text: string, params?: readonly unknown[]): Promise<R[]>;
}

export interface SqlEngine extends SqlQueryable {
  readonly kind: 'postgres' | 'embedded';
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (tx: SqlQueryable) => Promise<T>): Promise<T>;
  /**
   * A client node-pg-migrate can drive (`query(text)` running a whole migration file, several
   * statements, and `query(text, values)`), for the time `use` runs.
   */
  withMigrationClient<T>(use: (client: MigrationClient) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface MigrationClient {
  query(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
}

/**
 * PostgreSQL through a pg pool (`createAuditPool`'s timeouts and recovery apply). A server
 * that does not answer is a `StoreUnavailableError` (503 and Retry-After), as for the audit.
 */
export function postgresEngine(pool: pg.Pool): SqlEngine {
  // An idle connection the server ended (restart, failover, a cluster stopped under a test):
  // pg drops it and the next query opens another. With no listener the pool's 'error' event
  // would end the process; createAuditPool's pools come with one that logs it.
  if (pool.listenerCount('error') === 0) pool.on('error', () => {});
  const failed = (error: unknown) => postgresFailure(error, 'transaction index');
  return {
    kind: 'postgres',
    async query<R extends object>(text: string, params?: readonly unknown[]) {
      try {
        return (await pool.query<R>(text, params as unknown[] | undefined)).rows;
      } catch (error) {
        throw failed(error);
      }
    },
    async transaction<T>(work: (tx: SqlQueryable) => Promise<T>): Promise<T> {
      const client = await pool.connect().catch((error: unknown) => {
        throw failed(error);
      });
      try {
        await client.query('BEGIN');
        const result = await work({
          query: async <R extends object>(text: string, params?: readonly unknown[]) =>
            (await client.query<R>(text, params as unknown[] | undefined)).rows,
        });
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw failed(error);
      } finally {
        client.release();
      }
    },
    async withMigrationClient<T>(use: (client: MigrationClient) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      try {
        return await use(client);
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}

/**
 * The embedded engine: PGlite in this process, persisting to `dataDir` (in memory without
 * one). Loaded only when asked for, so a BFF with DATABASE_URL never loads its WebAssembly.
 * PGlite serves one statement at a time; its own queue orders concurrent callers.
 */
export async function embeddedEngine(dataDir?: string): Promise<SqlEngine> {
  const [{ PGlite }, { pg_trgm }] = await Promise.all([
    import('@electric-sql/pglite'),
    import('@electric-sql/pglite/contrib/pg_trgm'),
  ]);
  const db = await PGlite.create({ ...(dataDir ? { dataDir } : {}), extensions: { pg_trgm } });
  return {
    kind: 'embedded',
    async query<R extends object>(text: string, params?: readonly unknown[]) {
      return (await db.query<R>(text, params as unknown[] | undefined)).rows;
    },
    transaction: (work) =>
      db.transaction((tx) =>
        work({
          query: async <R extends object>(text: string, params?: readonly unknown[]) =>
            (await tx.query<R>(text, params as unknown[] | undefined)).rows,
        }),
      ),
    async withMigrationClient<T>(use: (client: MigrationClient) => Promise<T>): Promise<T> {
      return use({
        // A migration file is several statements and no values: the simple protocol (exec).
        async query(text, values) {
          if (values && values.length > 0) {
            return { rows: (await db.query<Record<string, unknown>>(text, values)).rows };
          }
          const results = await db.exec(text);
          return { rows: (results.at(-1)?.rows ?? []) as Record<string, unknown>[] };
        },
      });
    },
    close: () => db.close(),
  };
}
