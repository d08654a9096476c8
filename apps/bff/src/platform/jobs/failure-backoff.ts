/**
 * How long a failed job is remembered (joined, not started again) by how many times in a row
 * its key's job has failed: 5 s after the first, four times longer after each next one (20 s,
 * 80 s, 320 s), 15 minutes at most. Work a card service keeps failing (a walk it misbehaves in)
 * is then tried again on this schedule, not by every read that wants it; a success starts it
 * over. The index syncs and the Overview's computations both use it.
 */
export function failureBackoffMs(failuresInARow: number): number {
  return Math.min(5_000 * 4 ** Math.max(0, failuresInARow - 1), 15 * 60_000);
}
