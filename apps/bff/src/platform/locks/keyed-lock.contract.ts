// One behaviour suite for every KeyedLock implementation: in process, and shared by replicas.
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
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/** Resolves once `done()` holds; the test's own timeout is the hang guard. */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 2));
}

export interface KeyedLockContractOptions {
  /**
   * Two replicas' locks over one store (for an in-process lock, the same lock twice: one
   * process is one replica).
   */
  replicas?: (waitMs: number) => [KeyedLock, KeyedLock];
  /**
   * Long enough for a lock that wrongly let a task start to have started it (a shared store
   * answers over the network): what the test waits before saying something did not happen.
   */
  quiet?: () => Promise<unknown>;
}

export function keyedLockContract(
  name: string,
  make: (waitMs: number) => KeyedLock,
  options: KeyedLockContractOptions = {},
) {
  const quiet = options.quiet ?? nextTurn;
  /** Lets whatever should happen next happen: `expected` entries in the log, then quiet. */
  const settle = async (log: string[], expected: number) => {
    await until(() => log.length >= expected);
    await quiet();
  };
  const replicas =
    options.replicas ??
    ((waitMs: number): [KeyedLock, KeyedLock] => {
      const lock = make(waitMs);
      return [lock, lock];
    });

  describe(`${name} (KeyedLock contract)`, () => {
    it('runs the tasks of one key one at a time, in arrival order', async () => {
      const lock = make(60_000);
      const log: string[] = [];
      const tasks = ['a', 'b', 'c'].map((n) => heldTask(log, n));
      const results = tasks.map((t) => lock.run('card:1', t.task));
      await settle(log, 1);
      expect(log).toEqual(['start a']);
      tasks[0]?.finish();
      await settle(log, 3);
      expect(log).toEqual(['start a', 'end a', 'start b']);
      tasks[1]?.finish();
      await settle(log, 5);
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
      // Both started, neither ended: which began first is not the lock's to say (on PostgreSQL
      // each key takes its own connection and round trips; a loaded run had 'two' first).
      await settle(log, 2);
      expect([...log].sort()).toEqual(['start one', 'start two']);
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
      await settle(log, 1);
      failing.fail(new Error('upstream down'));
      await expect(first).rejects.toThrow('upstream down');
      await settle(log, 2);
      expect(log).toEqual(['start failing', 'start next']);
      next.finish();
      expect(await second).toBe('next');
    });

    it('refuses a waiter whose wait passes the bound, without running it, and serves later ones', async () => {
      const lock = make(20);
      const log: string[] = [];
      const holder = heldTask(log, 'holder');
      const held = lock.run('card:1', holder.task);
      await settle(log, 1);
      const late = heldTask(log, 'late');
      await expect(lock.run('card:1', late.task)).rejects.toBeInstanceOf(LockWaitTimeoutError);

      // The refused waiter leaves nothing behind: once the holder is done, the next task takes
      // the key. (Not queued before the holder ends: its own 20 ms would then have to cover the
      // holder's release, a round trip to a shared store that a loaded machine can take longer
      // over; waiters queued within their bound are the tests above and below.)
      holder.finish();
      await held;
      const next = heldTask(log, 'next');
      const queued = lock.run('card:1', next.task);
      await settle(log, 3);
      next.finish();
      expect(await queued).toBe('next');
      expect(log).toEqual(['start holder', 'end holder', 'start next', 'end next']);
    });

    it("runs one key's tasks sent through two replicas at once one at a time, each replica's in the order it sent them", async () => {
      const [a, b] = replicas(60_000);
      let running = 0;
      let most = 0;
      const ran: string[] = [];
      const results = await Promise.all(
        Array.from({ length: 30 }, (_, i) => {
          const name = `${i % 2 ? 'a' : 'b'}${i}`;
          return (i % 2 ? a : b).run('card:1', async () => {
            running += 1;
            most = Math.max(most, running);
            await nextTurn();
            await nextTurn();
            ran.push(name);
            running -= 1;
            return name;
          });
        }),
      );
      expect(most).toBe(1);
      expect(results).toHaveLength(30);
      for (const side of ['a', 'b']) {
        const order = ran.filter((n) => n.startsWith(side)).map((n) => Number(n.slice(1)));
        expect(order).toEqual([...order].sort((x, y) => x - y));
        expect(order).toHaveLength(15);
      }
    });

    it("a waiter on one replica starts only when the other replica's holder ends", async () => {
      const [a, b] = replicas(60_000);
      const log: string[] = [];
      const holder = heldTask(log, 'holder');
      const waiter = heldTask(log, 'waiter');
      const held = a.run('card:1', holder.task);
      await settle(log, 1);
      const waiting = b.run('card:1', waiter.task);
      await settle(log, 1);
      expect(log).toEqual(['start holder']);
      holder.finish();
      await held;
      await settle(log, 3);
      expect(log).toEqual(['start holder', 'end holder', 'start waiter']);
      waiter.finish();
      expect(await waiting).toBe('waiter');
    });

    it("refuses a waiter on one replica past its bound while the other replica holds the key, then serves that replica's next task", async () => {
      const [a, b] = replicas(20);
      const log: string[] = [];
      const holder = heldTask(log, 'holder');
      const held = a.run('card:1', holder.task);
      await settle(log, 1);
      const late = heldTask(log, 'late');
      await expect(b.run('card:1', late.task)).rejects.toBeInstanceOf(LockWaitTimeoutError);
      holder.finish();
      await held;
      const next = heldTask(log, 'next');
      const queued = b.run('card:1', next.task);
      await settle(log, 3);
      next.finish();
      expect(await queued).toBe('next');
      expect(log).toEqual(['start holder', 'end holder', 'start next', 'end next']);
    });
  });
}
