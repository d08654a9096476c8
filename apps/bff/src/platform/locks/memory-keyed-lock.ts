import { type KeyedLock, LockWaitTimeoutError } from './keyed-lock';

interface Waiter {
  start: () => void;
  timer: NodeJS.Timeout;
}

/**
 * One process's keyed lock: per key, the holder and a FIFO queue of waiters. A waiter that gives
 * up leaves the queue at once and a key with no holder leaves the map, so nothing piles up
 * behind a holder that takes long. No lease: in one process a holder cannot vanish without
 * the whole process, and its tasks end on their own deadlines (the upstream client's).
 */
export class MemoryKeyedLock implements KeyedLock {
  private readonly queues = new Map<string, Waiter[]>();
  private readonly waitMs: number;

  constructor(options: { waitMs: number }) {
    this.waitMs = options.waitMs;
  }

  /** Keys held or waited for now (0 when idle: nothing is kept per key). */
  get size(): number {
    return this.queues.size;
  }

  /** Tasks queued behind a holder now. */
  get waiting(): number {
    let count = 0;
    for (const queue of this.queues.values()) count += queue.length;
    return count;
  }

  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    await this.acquire(key);
    try {
      return await task();
    } finally {
      this.release(key);
    }
  }

  private acquire(key: string): Promise<void> {
    const queue = this.queues.get(key);
    if (!queue) {
      this.queues.set(key, []);
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        start: resolve,
        timer: setTimeout(() => {
          queue.splice(queue.indexOf(waiter), 1);
          reject(new LockWaitTimeoutError(key, this.waitMs));
        }, this.waitMs),
      };
      queue.push(waiter);
    });
  }

  private release(key: string): void {
    const next = this.queues.get(key)?.shift();
    if (!next) {
      this.queues.delete(key);
      return;
    }
    clearTimeout(next.timer);
    next.start();
  }
}
