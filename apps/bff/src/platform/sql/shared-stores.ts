import pg from 'pg';
import type { Logger } from 'pino';
import { type Clock, systemClock } from '../../core/clock';
import type { Config } from '../../env';
import { createAuditPool } from '../audit/postgres-audit';
import { SqlDayAggregateStore } from '../day-aggregates/sql-day-aggregate-store';
import { SqlKeyedLock } from '../locks/sql-keyed-lock';
import type { Metrics } from '../metrics/metrics';
import { SqlReplicaRoll } from '../pagination/replica-roll';
import { SqlFactorStore } from '../passkeys/sql-factor-store';
import { SqlExportReceipts } from '../security/sql-export-receipts';
import { SqlExportSlots } from '../security/sql-export-slots';
import { SqlOneTimeStore } from '../security/sql-one-time-store';
import { sqlRateLimiters } from '../security/sql-rate-limiters';
import { SqlUsedCodeLedger } from '../security/sql-used-code-ledger';
import { CachedSessionStore } from '../sessions/cached-session-store';
import { SqlSessionStore } from '../sessions/sql-session-store';
import { postgresEngine, type SqlEngine } from './sql-engine';
import { timedEngine } from './timed-engine';

export interface SharedStoresOptions {
  /** How long an edit waits for the card's previous edit; the in-memory lock's 10 s by default. */
  editWaitMs?: number;
  /**
   * The engine the keyed lock holds its connections on (`engine` when not given): each key
   * held or waited for keeps one for as long, so tasks that query the database themselves
   * must not share its pool, or enough of them at once would leave none for their queries.
   */
  lockEngine?: SqlEngine;
  logger?: Logger;
  /** The clock the sessions' read cache counts its seconds by; the system's by default. */
  clock?: Clock;
  /** Where each store's operations are timed, by store and outcome (none by default). */
  metrics?: Metrics;
}

/**
 * Every store whose state several replicas must share, in PostgreSQL (the tables `pnpm migrate`
 * makes beside the index's), ready to hand to `createApp`: sessions, rate limits and lock-outs
 * (step-up counters included), used TOTP codes, per-card edit serialisation, export caps and
 * export receipts, passkeys, passkey challenges and pending single sign-ons (each bounded on its
 * own), the Overview's per-day aggregates, and the roll of the replicas alive, which share the
 * card service's published rate limit. One process without DATABASE_URL keeps these in
 * memory (createApp's defaults) and its passkeys in a file (docs/decisions/0114-one-shared-engine.md).
 */
export function sharedStores(
  engine: SqlEngine,
  config: Pick<Config, 'exportCaps'>,
  options: SharedStoresOptions = {},
) {
  const { metrics } = options;
  // Each store's operations timed under its name; the lock's transactions last as long as the
  // task it serialises, so they are not timed as operations.
  const on = (store: string) => (metrics ? timedEngine(engine, metrics, store) : engine);
  return {
    // Read through a short cache: a brief outage does not stop signed-in reads (its bounds:
    // platform/sessions/outage-read-cache.ts).
    sessionStore: new CachedSessionStore(
      new SqlSessionStore(on('session')),
      options.clock ?? systemClock,
    ),
    rateLimiters: sqlRateLimiters(
      on('rate_limit'),
      options.logger ? { logger: options.logger } : {},
    ),
    usedCodes: new SqlUsedCodeLedger(on('used_code')),
    locks: new SqlKeyedLock(options.lockEngine ?? engine, {
      waitMs: options.editWaitMs ?? 10_000,
      ...(options.logger ? { logger: options.logger } : {}),
    }),
    exportSlots: new SqlExportSlots(on('export_slot'), config.exportCaps),
    exportReceipts: new SqlExportReceipts(on('export_receipt')),
    factorStore: new SqlFactorStore(on('factors')),
    challengeStore: new SqlOneTimeStore(on('one_time'), { kind: 'challenges' }),
    ssoPendingStore: new SqlOneTimeStore(on('one_time'), { kind: 'ssoPending' }),
    dayAggregates: new SqlDayAggregateStore(on('day_aggregates')),
    replicaRoll: new SqlReplicaRoll(on('replica_roll')),
  };
}

/** How many connections a replica's shared stores use at most, and its keyed lock. */
export const SHARED_POOL_SIZE = 10;
export const LOCK_POOL_SIZE = 16;

/**
 * The shared stores of a replica with DATABASE_URL, on pools of their own: the stores' with the
 * audit trail's timeouts (a database that does not answer is a 503 in seconds), the lock's
 * without a statement timeout, since it waits for a key as long as its bound and then holds
 * it while a card's edit or a sub account's sync runs.
 */
export function openSharedStores(
  url: string,
  config: Pick<Config, 'exportCaps'>,
  options: { logger: Logger; editWaitMs?: number; clock?: Clock; metrics?: Metrics },
) {
  const engine = postgresEngine(createAuditPool(url, options.logger, SHARED_POOL_SIZE));
  // postgresEngine below gives its connections their 'error' listener (keepClientErrorsHandled).
  const lockPool = new pg.Pool({
    connectionString: url,
    max: LOCK_POOL_SIZE,
    connectionTimeoutMillis: 3_000,
    idleTimeoutMillis: 30_000,
    keepAlive: true,
    application_name: 'card-console-bff-locks',
  });
  lockPool.on('error', (error) =>
    options.logger.warn({ err: error }, 'postgres: idle lock connection lost'),
  );
  const lockEngine = postgresEngine(lockPool);
  return {
    ...sharedStores(engine, config, { ...options, lockEngine }),
    close: async () => {
      await Promise.all([engine.close(), lockEngine.close()]);
    },
  };
}
