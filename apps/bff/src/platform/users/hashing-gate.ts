import pLimit from 'p-limit';

/** The gate's queue is full: the caller answers "busy, retry" instead of waiting. */
export class HashingBusyError extends Error {
  override name = 'HashingBusyError';
  constructor() {
    super('too many password hashes waiting');
  }
}

export interface HashingGate {
  /** Runs `work` when a slot is free; rejects at once with HashingBusyError when the queue is full. */
  run<T>(work: () => Promise<T>): Promise<T>;
}

/**
 * Caps password hashing. scrypt runs on libuv's thread pool (4 threads), which file I/O such
 * as the audit trail's fsync shares: a burst of sign-ins would otherwise queue every hash
 * there and leave everything else waiting behind it. `atOnce` hashes run, `queued` more
 * wait their turn, and any beyond that are refused immediately, so a sign-in waits at most
 * a few hashes' time.
 */
export function createHashingGate(options: { atOnce: number; queued: number }): HashingGate {
  const limit = pLimit(options.atOnce);
  return {
    run(work) {
      // p-limit starts a task synchronously while a slot is free, so its counts are exact here.
      const full = limit.activeCount >= options.atOnce && limit.pendingCount >= options.queued;
      if (full) return Promise.reject(new HashingBusyError());
      return limit(work);
    },
  };
}
