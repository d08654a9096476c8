import { describe, expect, it } from 'vitest';
import { createHashingGate, HashingBusyError } from './hashing-gate';

/** A piece of work that finishes when the test says so, and records how many ran at once. */
function tracker() {
  let running = 0;
  let peak = 0;
  const finishers: (() => void)[] = [];
  const work = () =>
    new Promise<void>((resolve) => {
      running++;
      peak = Math.max(peak, running);
      finishers.push(() => {
        running--;
        resolve();
      });
    });
  return {
    work,
    finishNext: async () => {
      finishers.shift()?.();
      // Let the gate hand the freed slot to the next piece of work.
      await new Promise((r) => setImmediate(r));
    },
    get running() {
      return running;
    },
    get peak() {
      return peak;
    },
  };
}

describe('the hashing gate', () => {
  it('runs at most `atOnce` at a time, queues `queued` more, and refuses the rest at once', async () => {
    const gate = createHashingGate({ atOnce: 2, queued: 3 });
    const t = tracker();
    const outcomes = Array.from({ length: 8 }, () =>
      gate.run(t.work).then(
        () => 'done',
        (error: unknown) => (error instanceof HashingBusyError ? 'busy' : 'other'),
      ),
    );
    await new Promise((r) => setImmediate(r));
    expect(t.running).toBe(2);
    for (let i = 0; i < 5; i++) await t.finishNext();
    expect(await Promise.all(outcomes)).toEqual([
      'done',
      'done',
      'done',
      'done',
      'done',
      'busy',
      'busy',
      'busy',
    ]);
    expect(t.peak).toBe(2);
  });

  it('takes new work again once the queue has room', async () => {
    const gate = createHashingGate({ atOnce: 1, queued: 0 });
    const t = tracker();
    const first = gate.run(t.work);
    await expect(gate.run(t.work)).rejects.toBeInstanceOf(HashingBusyError);
    await t.finishNext();
    await first;
    const second = gate.run(t.work);
    await new Promise((r) => setImmediate(r));
    expect(t.running).toBe(1);
    await t.finishNext();
    await expect(second).resolves.toBeUndefined();
  });
});
