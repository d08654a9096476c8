// The transaction index as the app holds it: its engine opened, and its schema made current,
// on first use (modules load when used: a BFF nobody asks for the index never starts PGlite).
import type { Logger } from 'pino';
import { systemClock } from '../../core/clock';
import type { TotpSecretBox } from '../../platform/security/totp-secret-box';
import { applyIndexMigrations } from '../../platform/sql/index-migrations';
import type { SqlEngine } from '../../platform/sql/sql-engine';
import { AlertStore } from '../alerts';
import { AnnotationStore } from '../annotations';
import { PeopleStore, PersonSessionTable } from '../people';
import { TransactionIndexStore } from './index-store';

export interface TransactionIndex {
  /** The store, once the engine is open and the migrations applied; a failed open is retried. */
  store(): Promise<TransactionIndexStore>;
  /** Transaction notes and the chart of accounts, in the same engine (migration `annotations`). */
  annotations(): Promise<AnnotationStore>;
  /** Alert rules, the alerts they raised and each person's inbox, in the same engine (migration `alerts`). */
  alerts(): Promise<AlertStore>;
  /** Who may sign in, invitations and the users file's import, in the same engine (migration `people`). */
  people(): Promise<PeopleStore>;
  /** Each person's open sessions, in the same engine (migration `person-sessions`). */
  personSessions(): Promise<PersonSessionTable>;
  /**
   * The engine itself, opened (and its schema made current) at its first statement: for a
   * store made before the engine opens (the people store the server hands out at start-up).
   */
  readonly sql: SqlEngine;
  /** Closes the engine if it was opened. */
  close(): Promise<void>;
}

export function createTransactionIndex(options: {
  open: () => Promise<SqlEngine>;
  /** Whether this process applies the migrations (PostgreSQL: only with the owner's URL). */
  migrate?: boolean;
  /** Which engine `open` opens (what `sql.kind` says before it is open); embedded by default. */
  kind?: SqlEngine['kind'];
  logger: Pick<Logger, 'info' | 'error'>;
  /** Run once the schema is current, before the first use (demo mode's chart of accounts). */
  seed?: (annotations: AnnotationStore) => Promise<void>;
  /** Seals the people's TOTP secrets (the configured key); without it the people store has none. */
  totpSecrets?: TotpSecretBox;
}): TransactionIndex {
  let opening:
    | Promise<{
        engine: SqlEngine;
        store: TransactionIndexStore;
        annotations: AnnotationStore;
        alerts: AlertStore;
        people: PeopleStore;
        personSessions: PersonSessionTable;
      }>
    | undefined;
  const open = () => {
    opening ??= (async () => {
      const engine = await options.open();
      try {
        if (options.migrate !== false) {
          const applied = await applyIndexMigrations(engine, options.logger);
          if (applied.length > 0)
            options.logger.info({ applied }, 'transaction index schema current');
        }
        const annotations = new AnnotationStore(engine);
        await options.seed?.(annotations);
        return {
          engine,
          store: new TransactionIndexStore(engine),
          annotations,
          alerts: new AlertStore(engine),
          people: new PeopleStore(engine, systemClock, options.totpSecrets),
          personSessions: new PersonSessionTable(engine),
        };
      } catch (error) {
        await engine.close().catch(() => {});
        throw error;
      }
    })();
    opening.catch(() => {
      opening = undefined;
    });
    return opening;
  };
  const engine = async () => (await open()).engine;
  const sql: SqlEngine = {
    kind: options.kind ?? 'embedded',
    query: async (text, params) => (await engine()).query(text, params),
    transaction: async (work) => (await engine()).transaction(work),
    withMigrationClient: async (use) => (await engine()).withMigrationClient(use),
    refreshStatistics: async () => (await engine()).refreshStatistics(),
    // Closed with the index, never through a store.
    close: async () => {},
  };
  return {
    sql,
    store: async () => (await open()).store,
    annotations: async () => (await open()).annotations,
    alerts: async () => (await open()).alerts,
    people: async () => (await open()).people,
    personSessions: async () => (await open()).personSessions,
    async close() {
      const current = opening;
      opening = undefined;
      if (current) await (await current.catch(() => undefined))?.engine.close();
    },
  };
}
