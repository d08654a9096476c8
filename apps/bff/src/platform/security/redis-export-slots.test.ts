import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisForTests, redisForTests, sleep } from '../../test/redis';
import { createRedisClient } from '../redis/redis-client';
import { StoreUnavailableError } from '../store-unavailable';
import { exportSlotsContract } from './export-slots.contract';
import { RedisExportSlots } from './redis-export-slots';

let redis: RedisForTests;
let one: Redis;
let two: Redis;
beforeAll(async () => {
  redis = await redisForTests();
  one = await redis.client();
  two = await redis.client();
});
afterAll(async () => redis?.close());

const until = async (done: () => Promise<boolean>) => {
  while (!(await done())) await sleep(20);
};
const caps = { perPerson: 1, total: 8 };

exportSlotsContract(
  'RedisExportSlots',
  (caps) => new RedisExportSlots(one, caps, { prefix: redis.prefix() }),
  {
    // Two clients: two replicas sharing one Redis.
    replicas: (caps) => {
      const prefix = redis.prefix();
      return [
        new RedisExportSlots(one, caps, { prefix }),
        new RedisExportSlots(two, caps, { prefix }),
      ];
    },
  },
);

describe('RedisExportSlots', () => {
  it('a slot held by a replica that vanished is free again once its lease lapses', async () => {
    const prefix = redis.prefix();
    const doomed = createRedisClient(redis.url);
    await until(async () => doomed.status === 'ready');
    const dead = new RedisExportSlots(doomed, caps, { prefix, leaseMs: 300 });
    expect((await dead.acquire('ada@example.test')).granted).toBe(true);
    doomed.disconnect(); // no renewal, no release

    const survivor = new RedisExportSlots(two, caps, { prefix, leaseMs: 300 });
    expect(await survivor.acquire('ada@example.test')).toEqual({
      granted: false,
      full: 'person',
    });
    await until(async () => (await survivor.acquire('ada@example.test')).granted);
  });

  it('a running export keeps its slot past its lease: renewals hold the cap', async () => {
    const prefix = redis.prefix();
    const a = new RedisExportSlots(one, caps, { prefix, leaseMs: 1_000 });
    const b = new RedisExportSlots(two, caps, { prefix, leaseMs: 1_000 });
    const running = await a.acquire('ada@example.test');
    if (!running.granted) throw new Error('expected a slot');
    await sleep(2_500);
    expect(await b.acquire('ada@example.test')).toEqual({ granted: false, full: 'person' });
    await running.release();
    expect((await b.acquire('ada@example.test')).granted).toBe(true);
  });

  it('leaves nothing in Redis once every slot is released', async () => {
    const prefix = redis.prefix();
    const slots = new RedisExportSlots(one, { perPerson: 3, total: 100 }, { prefix });
    const grants = await Promise.all(
      Array.from({ length: 30 }, (_, i) => slots.acquire(`p${i % 10}@example.test`)),
    );
    expect(grants.every((g) => g.granted)).toBe(true);
    expect(await one.zcard(`${prefix}exports:all`)).toBe(30);
    for (const slot of grants) if (slot.granted) await slot.release();
    expect(await one.keys(`${prefix}*`)).toEqual([]);
  });

  it('without a connection a slot is refused with StoreUnavailableError; a release then still resolves', async () => {
    const client = createRedisClient(redis.url);
    await until(async () => client.status === 'ready');
    const slots = new RedisExportSlots(client, caps, { prefix: redis.prefix() });
    const held = await slots.acquire('ada@example.test');
    client.disconnect();
    await expect(slots.acquire('bob@example.test')).rejects.toBeInstanceOf(StoreUnavailableError);
    // What the log says of it: which store, doing what.
    await expect(slots.acquire('bob@example.test')).rejects.toThrow(
      'redis unavailable during export slot',
    );
    if (!held.granted) throw new Error('expected a slot');
    await expect(held.release()).resolves.toBeUndefined();
  });
});
