import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisClient } from '../redis/redis-client';
import { type RedisForTests, redisForTests, sleep } from '../redis/redis-test-support';
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

const until = async (done: () => boolean) => {
  while (!done()) await sleep(5);
};

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

  it('a task that outlasts its lease keeps the key: renewals hold the other replica off', async () => {
    const prefix = redis.prefix();
    const a = new RedisKeyedLock(one, { prefix, waitMs: 60_000, leaseMs: 1_000 });
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
    ).rejects.toBeInstanceOf(StoreUnavailableError);
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
