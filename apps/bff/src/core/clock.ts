/** What time it is: the system clock, or a test's ManualClock. */
export interface Clock {
  now(): number;
}

/** Wall-clock time; tests inject a ManualClock instead. */
export const systemClock: Clock = { now: () => Date.now() };
