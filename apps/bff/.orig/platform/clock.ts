import type { Clock } from '../http/deps';

/** Wall-clock time; tests inject a ManualClock instead. */
export const systemClock: Clock = { now: () => Date.now() };
