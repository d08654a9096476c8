import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lineSink } from '../../test/capture';
import { type RedisForTests, redisForTests, sleep } from '../../test/redis';
import { createLogger } from '../logger';
import { createRedisClient } from '../redis/redis-client';
import { StoreUnavailableError } from '../store-unavailable';
import { LockWaitTimeoutError } from './keyed-lock';
import { keyedLockContract } from './keyed-lock.contract';
import { RedisKeyedLock } from './redis-keyed-lock';

let redis: RedisForTests;
let one: Redis;
let two: Redis;
beforeAll(async () => {
  redis = await redisForTests();
  one = await redis.client();
  two = await redis.client();
});
afterAll(async () => redis?.close());

const until = async (done: () => boolean | Promise<boolean>) => {
  while (!(await done())) await sleep(5);
};

/** A logger whose error lines the test can read. */
function errorLog() {
  const lines: string[] = [];
  return { logger: createLogger('error', lineSink(lines)), lines };
}

/**
 * A replica's client whose script calls (the lock's every step) fail once `failNext` says so,
 * given the answer to the call before: Redis refusing one command, then answering again.
 */
function flaky(client: Redis, failNext: (previous: unknown) => boolean) {
  let previous: unknown;
  const evalsha = async (...args: Parameters<Redis['evalsha']>) => {
    if (failNext(previous)) {
      previous = undefined;
      throw new Error('LOADING Redis is loading the dataset in memory');
    }
    previous = await client.evalsha(...args);
    return previous;
  };
  return new Proxy(client, {
    get(target, property) {
      if (property === 'evalsha') return evalsha;
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

const lockKeys = (prefix: string, key: string) =>
  ['seq', 'queue', 'alive'].map((part) => `${prefix}lock:${key}:${part}`);

keyedLockContract(
  'RedisKeyedLock',
  (waitMs) => new RedisKeyedLock(one, { prefix: redis.prefix(), waitMs }),
  {
    // Two clients: two replicas sharing one Redis.
    replicas: (waitMs) => {
      const prefix = redis.prefix();
      return [
        new RedisKeyedLock(one, { prefix, waitMs }),
        new RedisKeyedLock(two, { prefix, waitMs }),
      ];
    },
    // Several polls' worth: a waiter wrongly let in would have started by then.
    quiet: () => sleep(100),
  },
);

describe('RedisKeyedLock', () => {
  it('a holder whose replica vanished mid-task frees the key once its lease lapses', async () => {
    const prefix = redis.prefix();
    const doomed = createRedisClient(redis.url);
    await until(() => doomed.status === 'ready');
    const gone = new RedisKeyedLock(doomed, { prefix, waitMs: 60_000, leaseMs: 300 });
    const log: string[] = [];
    void gone.run('card:1', () => {
      log.push('start on the dead replica');
      return new Promise(() => {}); // never ends: the replica died while it ran
    });
    await until(() => log.length === 1);
    doomed.disconnect(); // no renewal, no release

    const survivor = new RedisKeyedLock(two, { prefix, waitMs: 60_000, leaseMs: 300 });
    expect(await survivor.run('card:1', async () => 'ran')).toBe('ran');
  });

  it('a task that outlasts its lease keeps the key: renewals hold the other replica off, and nothing is logged', async () => {
    const prefix = redis.prefix();
    const { logger, lines } = errorLog();
    const a = new RedisKeyedLock(one, { prefix, waitMs: 60_000, leaseMs: 1_000, logger });
    const b = new RedisKeyedLock(two, { prefix, waitMs: 60_000, leaseMs: 1_000 });
    const log: string[] = [];
    const long = a.run('card:1', async () => {
      log.push('start long');
      await sleep(2_500);
      log.push('end long');
    });
    await until(() => log.length === 1);
    const next = b.run('card:1', async () => {
      log.push('start next');
    });
    await Promise.all([long, next]);
    expect(log).toEqual(['start long', 'end long', 'start next']);
    expect(lines).toEqual([]);
  });

  it('an uncontended key is taken at once, without waiting for a poll', async () => {
    const lock = new RedisKeyedLock(one, {
      prefix: redis.prefix(),
      waitMs: 60_000,
      pollMs: 20_000,
    });
    const started = performance.now();
    expect(await lock.run('card:1', async () => 'ran')).toBe('ran');
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it('a waiter asks Redis once a poll interval, not in a loop: 100 ms apart while the key is held', async () => {
    const prefix = redis.prefix();
    const holder = new RedisKeyedLock(one, { prefix, waitMs: 60_000 });
    let calls = 0;
    const counted = flaky(two, () => {
      calls++;
      return false;
    });
    const waiter = new RedisKeyedLock(counted, { prefix, waitMs: 60_000, pollMs: 100 });
    let release = () => {};
    const held = holder.run('card:poll', () => new Promise<void>((r) => (release = r)));
    await sleep(20);
    const waited = waiter.run('card:poll', async () => 'ran');
    await sleep(450);
    const whileHeld = calls;
    release();
    await held;
    expect(await waited).toBe('ran');
    // Its arrival, then about one poll each 100 ms: about 5 in 450 ms (fewer on a busy
    // machine, whose timers run late), never dozens.
    expect(whileHeld).toBeGreaterThanOrEqual(2);
    expect(whileHeld).toBeLessThanOrEqual(8);
  });

  it("a key's entries sit under the prefix and outlive the lease in them; abandoned, they expire by themselves", async () => {
    const prefix = redis.prefix();
    const doomed = createRedisClient(redis.url);
    await until(() => doomed.status === 'ready');
    const lock = new RedisKeyedLock(doomed, { prefix, waitMs: 60_000, leaseMs: 1_000 });
    let started = false;
    void lock.run('card:1', () => {
      started = true;
      return new Promise(() => {}); // its replica dies while it runs
    });
    await until(() => started);
    doomed.disconnect();
    const keys = lockKeys(prefix, 'card:1');
    expect((await one.keys(`${prefix}*`)).sort()).toEqual([...keys].sort());
    // The lease's end, by Redis's clock, read before the keys' expiry: both count down alike.
    const [, leaseEnd] = await one.zrange(`${prefix}lock:card:1:alive`, '0', '0', 'WITHSCORES');
    const [seconds, micros] = await one.time();
    const leaseLeft =
      Number(leaseEnd) - (Number(seconds) * 1000 + Math.floor(Number(micros) / 1000));
    expect(leaseLeft).toBeGreaterThan(0);
    for (const key of keys) expect(await one.pttl(key)).toBeGreaterThan(leaseLeft);
    await until(async () => (await one.keys(`${prefix}*`)).length === 0);
  });

  it('when Redis forgets the queue mid-task (restarted empty), the waiter queues again and runs, and the holder logs its lost lease once', async () => {
    const prefix = redis.prefix();
    const { logger, lines } = errorLog();
    const holder = new RedisKeyedLock(one, { prefix, waitMs: 60_000, leaseMs: 300, logger });
    const waiter = new RedisKeyedLock(two, { prefix, waitMs: 20_000, leaseMs: 300 });
    const log: string[] = [];
    let finish: () => void = () => {};
    const held = holder.run('card:1', () => {
      log.push('start holder');
      return new Promise<void>((resolve) => (finish = resolve));
    });
    await until(() => log.length === 1);
    const waiting = waiter.run('card:1', async () => {
      log.push('start waiter');
    });
    await until(async () => (await one.zcard(`${prefix}lock:card:1:queue`)) === 2);
    await one.del(...lockKeys(prefix, 'card:1'));
    await waiting;
    expect(log).toEqual(['start holder', 'start waiter']);
    await sleep(600); // several renewals, each finding the lease gone
    finish();
    await held;
    expect(lines.map((line) => JSON.parse(line))).toMatchObject([
      {
        lock: 'card:1',
        msg: 'lock lease lost while its task ran: another replica may now run the same key',
      },
    ]);
  });

  it('a lost lease with no logger to tell is no error either', async () => {
    const prefix = redis.prefix();
    const unhandled: unknown[] = [];
    const keep = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', keep);
    try {
      const lock = new RedisKeyedLock(one, { prefix, waitMs: 60_000, leaseMs: 150 });
      const result = await lock.run('card:1', async () => {
        await one.del(...lockKeys(prefix, 'card:1'));
        await sleep(400);
        return 'saved';
      });
      expect(result).toBe('saved');
      await sleep(50);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', keep);
    }
  });

  it('a waiter whose Redis call fails is refused as the store being unavailable, and leaves the queue at once', async () => {
    const prefix = redis.prefix();
    let finish: () => void = () => {};
    let started = false;
    const held = new RedisKeyedLock(one, { prefix, waitMs: 60_000 }).run('card:1', () => {
      started = true;
      return new Promise<void>((resolve) => (finish = resolve));
    });
    await until(() => started);
    let polls = 0;
    // The enqueue and a first poll answer; the second poll fails.
    const client = flaky(two, () => ++polls === 3);
    const waiter = new RedisKeyedLock(client, { prefix, waitMs: 60_000 });
    await expect(waiter.run('card:1', async () => 'ran')).rejects.toThrow(
      new StoreUnavailableError('redis', 'lock'),
    );
    expect(await one.zcard(`${prefix}lock:card:1:queue`)).toBe(1);
    finish();
    await held;
  });

  it('when Redis forgets the queue and then fails as the waiter queues again, the waiter is refused as the store being unavailable', async () => {
    const prefix = redis.prefix();
    let finish: () => void = () => {};
    let started = false;
    const held = new RedisKeyedLock(one, { prefix, waitMs: 60_000 }).run('card:1', () => {
      started = true;
      return new Promise<void>((resolve) => (finish = resolve));
    });
    await until(() => started);
    const waiter = new RedisKeyedLock(
      flaky(two, (previous) => previous === -1),
      { prefix, waitMs: 60_000 },
    );
    const waiting = waiter.run('card:1', async () => 'ran');
    await until(async () => (await one.zcard(`${prefix}lock:card:1:queue`)) === 2);
    await one.del(...lockKeys(prefix, 'card:1'));
    await expect(waiting).rejects.toThrow(new StoreUnavailableError('redis', 'lock'));
    finish();
    await held;
  });

  it('a waiter that gives up leaves the queue at once, and nothing is left once every task settled', async () => {
    const prefix = redis.prefix();
    let finish: () => void = () => {};
    let started = false;
    const holder = new RedisKeyedLock(one, { prefix, waitMs: 60_000 });
    const held = holder.run('card:1', () => {
      started = true;
      return new Promise<void>((resolve) => (finish = resolve));
    });
    await until(() => started);
    const impatient = new RedisKeyedLock(two, { prefix, waitMs: 10 });
    const refusals = await Promise.allSettled(
      Array.from({ length: 10 }, () => impatient.run('card:1', async () => 'ran')),
    );
    expect(
      refusals.every((r) => r.status === 'rejected' && r.reason instanceof LockWaitTimeoutError),
    ).toBe(true);
    expect(await one.zcard(`${prefix}lock:card:1:queue`)).toBe(1);
    finish();
    await held;

    const mixed = new RedisKeyedLock(two, { prefix, waitMs: 60_000 });
    await Promise.allSettled(
      Array.from({ length: 60 }, (_, i) =>
        mixed.run(`card:${i % 6}`, async () => {
          if (i % 3 === 0) throw new Error('refused');
          return i;
        }),
      ),
    );
    expect(await one.keys(`${prefix}*`)).toEqual([]);
  });

  it('without a connection a task is refused with StoreUnavailableError and never runs', async () => {
    const client = createRedisClient(redis.url);
    client.disconnect();
    let ran = false;
    const lock = new RedisKeyedLock(client, { prefix: redis.prefix(), waitMs: 60_000 });
    await expect(
      lock.run('card:1', async () => {
        ran = true;
      }),
    ).rejects.toThrow(new StoreUnavailableError('redis', 'lock'));
    expect(ran).toBe(false);
  });

  it("a release that cannot reach Redis does not turn the task's result into a failure", async () => {
    const client = createRedisClient(redis.url);
    await until(() => client.status === 'ready');
    const lock = new RedisKeyedLock(client, { prefix: redis.prefix(), waitMs: 60_000 });
    const result = await lock.run('card:1', async () => {
      client.disconnect();
      return 'saved';
    });
    expect(result).toBe('saved');
  });
});
