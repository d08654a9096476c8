// The database as the app holds it: its engine opened, and its schema made current, at its
// first use (modules load when used: a BFF nobody asks for stored state never starts PGlite).
// Each feature's store is made over it by the composition root (src/stores.ts).
import type { Logger } from 'pino';
import { applyIndexMigrations } from './index-migrations';
import { loggedMigrationNames } from './migrations';
import type { SqlEngine } from './sql-engine';

export interface Database {
  /**
   * The engine, opened (and its schema made current) at its first statement: stores may be
   * made over it before it opens. Closed with the database, never through a store.
   */
  readonly sql: SqlEngine;
  /** The engine once open, migrated and `onFirstOpen` done; a failed open is retried. */
  whenOpen(): Promise<SqlEngine>;
  /** Whether the engine is open (nothing has made it open yet, or it was closed, when not). */
  isOpen(): boolean;
  /** Closes the engine if it was opened. */
  close(): Promise<void>;
}

export function openDatabase(options: {
  open: () => Promise<SqlEngine>;
  /** Whether this process applies the migrations (PostgreSQL: only with the owner's URL). */
  migrate?: boolean;
  /** Which engine `open` opens (what `sql.kind` says before it is open); embedded by default. */
  kind?: SqlEngine['kind'];
  logger: Pick<Logger, 'info' | 'error'>;
  /** Run once the schema is current, before the first use (demo mode's chart of accounts). */
  onFirstOpen?: (engine: SqlEngine) => Promise<void>;
}): Database {
  let opening: Promise<SqlEngine> | undefined;
  let open: SqlEngine | undefined;
  const whenOpen = () => {
    if (opening) return opening;
    const current = (async () => {
      const engine = await options.open();
      try {
        if (options.migrate !== false) {
          const applied = await applyIndexMigrations(engine, options.logger);
          if (applied.length > 0) {
            const names = applied.map(loggedMigrationNames);
            options.logger.info({ applied: names }, 'database schema current');
          }
        }
        await options.onFirstOpen?.(engine);
        return engine;
      } catch (error) {
        await engine.close().catch(() => {});
        throw error;
      }
    })();
    opening = current;
    current.then(
      (engine) => {
        if (opening === current) open = engine;
      },
      () => {
        if (opening === current) opening = undefined;
      },
    );
    return current;
  };
  const sql: SqlEngine = {
    kind: options.kind ?? 'embedded',
    // Known once open (an embedded engine runs on this thread or its own); nothing runs before.
    get sharesThread() {
      return open?.sharesThread ?? false;
    },
    query: async (text, params) => (await whenOpen()).query(text, params),
    transaction: async (work) => (await whenOpen()).transaction(work),
    background: async (work, options) => (await whenOpen()).background(work, options),
    withMigrationClient: async (use) => (await whenOpen()).withMigrationClient(use),
    refreshStatistics: async (tables) => (await whenOpen()).refreshStatistics(tables),
    // Closed with the database, never through a store.
    close: async () => {},
  };
  return {
    sql,
    whenOpen,
    isOpen: () => open !== undefined,
    async close() {
      const current = opening;
      opening = undefined;
      open = undefined;
      if (current) await (await current.catch(() => undefined))?.close();
    },
  };
}
