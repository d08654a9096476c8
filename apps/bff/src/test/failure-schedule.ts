// Test helper (not a test file): one walk through a job runner's failure schedule, for every
// runner that takes `failureMemoryMs` as `(inARow) => inARow * 1_000`.
import { expect } from 'vitest';
import type { ManualClock } from './manual-clock';

export interface FlakyWork {
  /** Whether the next run fails. */
  fail: boolean;
  /** Runs so far. */
  runs: number;
}

/** The work the runner is given: counts its runs, and fails while `flaky.fail`. */
export function flakyWork(flaky: FlakyWork) {
  return async () => {
    flaky.runs += 1;
    if (flaky.fail) throw new Error(`failed run ${flaky.runs}`);
  };
}

/**
 * Asks (`ask`, which waits for the job it gets) through failures in a row and a success, and
 * checks that a failed job is joined until `retryAt` says, which grows with each failure in a
 * row (1 s, then 2 s), and that a success starts the count over.
 */
export async function expectFailureSchedule(o: {
  clock: ManualClock;
  flaky: FlakyWork;
  ask: () => Promise<unknown>;
  retryAt: () => number | undefined;
}) {
  const { clock, flaky, ask, retryAt } = o;
  await ask();
  expect(flaky.runs).toBe(1);
  expect(retryAt()).toBe(clock.now() + 1_000);
  // Every ask within the memory joins the failure.
  for (let i = 0; i < 3; i++) await ask();
  clock.advance(999);
  await ask();
  expect(flaky.runs).toBe(1);
  clock.advance(1);
  await ask();
  expect(flaky.runs).toBe(2);
  expect(retryAt()).toBe(clock.now() + 2_000);
  clock.advance(1_999);
  await ask();
  expect(flaky.runs).toBe(2);
  clock.advance(1);
  flaky.fail = false;
  await ask();
  expect(flaky.runs).toBe(3);
  expect(retryAt()).toBeUndefined();
  // After a success, the next failure is the first in a row again.
  flaky.fail = true;
  clock.advance(1);
  await ask();
  expect(flaky.runs).toBe(4);
  expect(retryAt()).toBe(clock.now() + 1_000);
}
