// How far behind the index is, for the lag metric. Syncs run when a read asks (nothing syncs
// while no one looks, and that is no lag): a sub account's sync is owed from the first read
// that found it due after its last success, until a sync of it succeeds here or a read finds
// its days fresh (another replica synced them).
import type { Clock } from '../../core/clock';

/** Sub accounts tracked at most (ids come from requests): past it, new ones are not. */
const MAX_OWED = 10_000;

export function syncLag(clock: Clock) {
  const owedSince = new Map<string, number>();
  return {
    /** A read found the sub account due, or its sync still running. */
    owed(subAccountId: string) {
      if (!owedSince.has(subAccountId) && owedSince.size < MAX_OWED)
        owedSince.set(subAccountId, clock.now());
    },
    /** Synced: here, or by another replica (a read found its days fresh). */
    settled(subAccountId: string) {
      owedSince.delete(subAccountId);
    },
    /** Seconds the longest-owed sync has been owed; 0 when none is. */
    seconds(): number {
      let oldest = Number.POSITIVE_INFINITY;
      for (const since of owedSince.values()) oldest = Math.min(oldest, since);
      return oldest === Number.POSITIVE_INFINITY ? 0 : Math.max(0, clock.now() - oldest) / 1000;
    },
  };
}
