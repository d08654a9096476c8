import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { RateLimiterRes } from './rate-limiter-classes';

/** A counter an attempt is charged to: a limiter and the key within it. */
export interface Counter {
  limiter: RateLimiterAbstract;
  key: string;
}

/** One point an attempt took from a counter, and when the window holding it ends. */
export interface HeldPoint extends Counter {
  /** Points taken in the window, this one included. */
  consumedPoints: number;
  windowEndsAt: number;
}

export type Reservation =
  | { ok: true; held: HeldPoint[] }
  | { ok: false; refusedBy: Counter; msBeforeNext: number };

// The limiters keep their windows by the wall clock (Date.now, or the database's own time), not by
// the app's injected clock, so windows are judged by the wall clock here too.
const held = (counter: Counter, res: RateLimiterRes): HeldPoint => ({
  ...counter,
  consumedPoints: res.consumedPoints,
  windowEndsAt: Date.now() + res.msBeforeNext,
});

/**
 * Takes one point from each counter, in order, before anything is checked: `consume` is
 * atomic per key (in memory and in PostgreSQL), so however many attempts arrive at once, no more
 * than a counter's points get through. When a counter refuses, every point this attempt
 * took, the refused one included, goes back: a refused attempt counts nowhere.
 */
export async function reserve(counters: readonly Counter[]): Promise<Reservation> {
  const taken: HeldPoint[] = [];
  for (const counter of counters) {
    try {
      taken.push(held(counter, await counter.limiter.consume(counter.key)));
    } catch (error) {
      if (!(error instanceof RateLimiterRes)) {
        // The store failed (503): hand back what we can, and report the failure itself.
        await Promise.allSettled(taken.map(giveBack));
        throw error;
      }
      await Promise.all([...taken, held(counter, error)].map(giveBack));
      return { ok: false, refusedBy: counter, msBeforeNext: error.msBeforeNext };
    }
  }
  return { ok: true, held: taken };
}

/**
 * Returns a held point. Once its window has ended the counter has started afresh without it,
 * and a reward then would credit the new window with a point it never had.
 */
export async function giveBack(point: HeldPoint): Promise<void> {
  if (Date.now() >= point.windowEndsAt) return;
  await point.limiter.reward(point.key, 1);
}
