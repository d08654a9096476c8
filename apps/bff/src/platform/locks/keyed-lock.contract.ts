// One behaviour suite for every KeyedLock implementation (memory now, a shared store later).
import { describe, expect, it } from 'vitest';
import { type KeyedLock, LockWaitTimeoutError } from './keyed-lock';

/** A task that runs until the test lets it end, and says whether it has started. */
function heldTask(log: string[], name: string) {
  let finish: (value: string) => void = () => {};
  let fail: (error: Error) => void = () => {};
  const task = () => {
    log.push(`start ${name}`);
    return new Promise<string>((resolve, reject) => {
      finish = (value) => {
        log.push(`end ${name}`);
        resolve(value);
      };
      fail = reject;
    });
  };
  return { task, finish: (value = name) => finish(value), fail: (e: Error) => fail(e) };
}

/** Lets every queued callback and promise continuation run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

export function keyedLockContract(name: string, make: (waitMs: number) => KeyedLock) {
  describe(`${name} (KeyedLock contract)`, () => {
    it('runs the tasks of one key one at a time, in arrival order', async () => {
      const lock = make(60_000);
      const log: string[] = [];
      const tasks = ['a', 'b', 'c'].map((n) => heldTask(log, n));
      const results = tasks.map((t) => lock.run('card:1', t.task));
      await settle();
      expect(log).toEqual(['start a']);
      tasks[0]?.finish();
      await settle();
      expect(log).toEqual(['start a', 'end a', 'start b']);
      tasks[1]?.finish();
      await settle();
      tasks[2]?.finish();
      expect(await Promise.all(results)).toEqual(['a', 'b', 'c']);
      expect(log).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
    });

    it('lets tasks of different keys run at the same time', async () => {
      const lock = make(60_000);
      const log: string[] = [];
      const one = heldTask(log, 'one');
      const two = heldTask(log, 'two');
      const results = [lock.run('card:1', one.task), lock.run('card:2', two.task)];
      await settle();
      expect(log).toEqual(['start one', 'start two']);
      two.finish();
      one.finish();
      expect(await Promise.all(results)).toEqual(['one', 'two']);
    });

    it('frees the key when a task fails, passing the failure on', async () => {
      const lock = make(60_000);
      const log: string[] = [];
      const failing = heldTask(log, 'failing');
      const next = heldTask(log, 'next');
      const first = lock.run('card:1', failing.task);
      const second = lock.run('card:1', next.task);
      await settle();
      failing.fail(new Error('upstream down'));
      await expect(first).rejects.toThrow('upstream down');
      await settle();
      expect(log).toEqual(['start failing', 'start next']);
      next.finish();
      expect(await second).toBe('next');
    });

    it('refuses a waiter whose wait passes the bound, without running it, and serves later ones', async () => {
      const lock = make(20);
      const log: string[] = [];
      const holder = heldTask(log, 'holder');
      const held = lock.run('card:1', holder.task);
      const late = heldTask(log, 'late');
      await expect(lock.run('card:1', late.task)).rejects.toBeInstanceOf(LockWaitTimeoutError);

      const next = heldTask(log, 'next');
      const queued = lock.run('card:1', next.task);
      holder.finish();
      await held;
      await settle();
      next.finish();
      expect(await queued).toBe('next');
      expect(log).toEqual(['start holder', 'end holder', 'start next', 'end next']);
    });
  });
}
