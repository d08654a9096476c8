/**
 * Runs tasks one at a time per key (e.g. one card's edits), in arrival order. Async so a shared
 * implementation (PostgreSQL's advisory locks) can take the in-memory one's place when several BFF replicas run.
 */
export interface KeyedLock {
  /**
   * Runs `task` once no other task holds `key`, and frees the key when it settles. Rejects with
   * `LockWaitTimeoutError`, without running `task`, when the key stays taken past the wait bound.
   */
  run<T>(key: string, task: () => Promise<T>): Promise<T>;
}

/** The key was not free within the wait bound; the task did not run. */
export class LockWaitTimeoutError extends Error {
  readonly key: string;

  constructor(key: string, waitedMs: number) {
    super(`lock ${key} not free within ${waitedMs} ms`);
    this.name = 'LockWaitTimeoutError';
    this.key = key;
  }
}
