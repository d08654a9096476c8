import type { Logger } from 'pino';
import type { SqlEngine } from '../sql/sql-engine';
import { StoreUnavailableError } from '../store-unavailable';
import { type KeyedLock, LockWaitTimeoutError } from './keyed-lock';
import { MemoryKeyedLock } from './memory-keyed-lock';

export interface SqlKeyedLockOptions {
  /** How long a task waits for the key, in this replica's queue and the database's together. */
  waitMs: number;
  logger?: Logger;
}

/** PostgreSQL's "lock not available": the wait passed `lock_timeout`. */
const lockTimedOut = (error: unknown) =>
  error instanceof StoreUnavailableError &&
  (error.cause as { code?: unknown } | undefined)?.code === '55P03';

/**
 * One card's edits one at a time across every replica, on PostgreSQL: a transaction holds
 * `pg_advisory_xact_lock` on a 64-bit hash of the key while the task runs (two keys sharing a
 * hash only wait for each other), `lock_timeout` bounding the wait. The lock belongs to the
 * transaction's connection, so it ends with the task, and with the connection when its replica
 * dies: no lease to renew. In front, each replica queues its own tasks per key in arrival
 * order, so one replica sends one waiter per key and its tasks start in the order it got them.
 *
 * Each key held or waited for takes one of the engine's connections for as long: give the
 * lock an engine (pool) of its own when tasks query the database themselves.
 *
 * Not for the embedded engine: PGlite has one connection, and a transaction held open for a
 * task would stall every other query; one process keeps MemoryKeyedLock.
 */
export class SqlKeyedLock implements KeyedLock {
  private readonly local: MemoryKeyedLock;

  constructor(
    private readonly engine: SqlEngine,
    private readonly options: SqlKeyedLockOptions,
  ) {
    if (engine.kind !== 'postgres') {
      throw new Error('SqlKeyedLock needs PostgreSQL; one process uses MemoryKeyedLock');
    }
    this.local = new MemoryKeyedLock({ waitMs: options.waitMs });
  }

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + this.options.waitMs;
    return this.local.run(key, () => this.hold(key, deadline, task));
  }

  private async hold<T>(key: string, deadline: number, task: () => Promise<T>): Promise<T> {
    const left = deadline - Date.now();
    if (left <= 0) throw new LockWaitTimeoutError(key, this.options.waitMs);
    let done: { value: T } | undefined;
    try {
      await this.engine.transaction(async (tx) => {
        // lock_timeout 0 would mean no bound at all; idle_in_transaction_session_timeout off,
        // or a server that sets it would end the connection, and the lock, mid-task.
        await tx.query(
          `SELECT set_config('lock_timeout', $1, true),
                  set_config('idle_in_transaction_session_timeout', '0', true)`,
          [`${Math.max(1, Math.ceil(left))}ms`],
        );
        try {
          await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [key]);
        } catch (error) {
          if (lockTimedOut(error)) throw new LockWaitTimeoutError(key, this.options.waitMs);
          throw error;
        }
        done = { value: await task() };
      });
    } catch (error) {
      if (!done) throw error;
      // The task ran under the lock; only the commit that ends it failed (the connection is
      // gone, and the lock with it). Its result stands.
      this.options.logger?.error(
        { lock: key, err: error },
        "lock's connection failed as its task ended: the lock was released with it",
      );
    }
    return (done as { value: T }).value;
  }
}
