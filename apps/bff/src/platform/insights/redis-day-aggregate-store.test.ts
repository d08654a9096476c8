import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisForTests, redisForTests, sleep } from '../../test/redis';
import { createRedisClient } from '../redis/redis-client';
import { StoreUnavailableError } from '../store-unavailable';
import { aggregate, dayAggregateStoreContract } from './day-aggregate-store.contract';
import { RedisDayAggregateStore } from './redis-day-aggregate-store';

let redis: RedisForTests;
let one: Redis;
let two: Redis;
beforeAll(async () => {
  redis = await redisForTests();
  one = await redis.client();
  two = await redis.client();
});
afterAll(async () => redis?.close());

dayAggregateStoreContract(
  'RedisDayAggregateStore',
  async () => new RedisDayAggregateStore(one, { prefix: redis.prefix() }),
);

describe('RedisDayAggregateStore', () => {
  it('replicas sharing one Redis see each other’s days', async () => {
    const prefix = redis.prefix();
    const a = new RedisDayAggregateStore(one, { prefix });
    const b = new RedisDayAggregateStore(two, { prefix });
    await a.put('sub_1', 'UTC', [aggregate('2026-01-01', 42)]);
    expect((await b.get('sub_1', 'UTC', ['2026-01-01'])).get('2026-01-01')?.money.card.cents).toBe(
      42,
    );
  });

  it('a value it did not write is unknown, so the day is walked again', async () => {
    const prefix = redis.prefix();
    const store = new RedisDayAggregateStore(one, { prefix });
    await one.hset(
      `${prefix}insights-days-v2:sub_1/UTC`,
      '2026-01-01',
      'not json',
      '2026-01-02',
      '{"day":"x"}',
      // Written before days carried when they were walked: how fresh it is cannot be told.
      '2026-01-03',
      JSON.stringify((({ walkedAt: _w, ...old }) => old)(aggregate('2026-01-03'))),
    );
    const got = await store.get('sub_1', 'UTC', ['2026-01-01', '2026-01-02', '2026-01-03']);
    expect(got.size).toBe(0);
  });

  it('renews its expiry on every write', async () => {
    const prefix = redis.prefix();
    const store = new RedisDayAggregateStore(one, { prefix, ttlMs: 60_000 });
    await store.put('sub_1', 'UTC', [aggregate('2026-01-01')]);
    const ttl = await one.pttl(`${prefix}insights-days-v2:sub_1/UTC`);
    expect(ttl).toBeGreaterThan(50_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });

  it('a series past its bound of days starts over from the days just written', async () => {
    const prefix = redis.prefix();
    const store = new RedisDayAggregateStore(one, { prefix, maxDays: 10, ttlMs: 60_000 });
    const day = (i: number) => new Date(Date.UTC(2026, 0, 1 + i)).toISOString().slice(0, 10);
    const list = (from: number, n: number) => Array.from({ length: n }, (_, i) => day(from + i));
    await store.put(
      'sub_1',
      'UTC',
      list(0, 8).map((d) => aggregate(d)),
    );
    await store.put(
      'sub_1',
      'UTC',
      list(8, 2).map((d) => aggregate(d)),
    );
    expect((await store.get('sub_1', 'UTC', list(0, 10))).size).toBe(10);
    await store.put(
      'sub_1',
      'UTC',
      list(100, 5).map((d) => aggregate(d)),
    );
    const key = `${prefix}insights-days-v2:sub_1/UTC`;
    expect(await one.hlen(key)).toBe(5);
    expect((await store.get('sub_1', 'UTC', list(100, 5))).size).toBe(5);
    expect(await one.pttl(key)).toBeGreaterThan(50_000);
  });

  it('without a connection, reads and writes fail with StoreUnavailableError', async () => {
    const dead = createRedisClient(redis.url);
    while (dead.status !== 'ready') await sleep(20);
    dead.disconnect();
    const store = new RedisDayAggregateStore(dead, { prefix: redis.prefix() });
    await expect(store.get('sub_1', 'UTC', ['2026-01-01'])).rejects.toBeInstanceOf(
      StoreUnavailableError,
    );
    await expect(store.put('sub_1', 'UTC', [aggregate('2026-01-01')])).rejects.toBeInstanceOf(
      StoreUnavailableError,
    );
  });
});
