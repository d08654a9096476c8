import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisClient } from '../redis/redis-client';
import { type RedisForTests, redisForTests, sleep } from '../redis/redis-test-support';
import { StoreUnavailableError } from '../store-unavailable';
import { oneTimeStoreContract } from './one-time-store.contract';
import { RedisOneTimeStore } from './redis-one-time-store';

let redis: RedisForTests;
beforeAll(async () => {
  redis = await redisForTests();
});
afterAll(async () => redis?.close());

// Two clients: two replicas sharing one Redis; expiry is Redis's own, so real time passes.
oneTimeStoreContract('RedisOneTimeStore', async () => {
  const prefix = redis.prefix();
  return {
    a: new RedisOneTimeStore(await redis.client(), prefix),
    b: new RedisOneTimeStore(await redis.client(), prefix),
    pass: sleep,
  };
});

describe('RedisOneTimeStore', () => {
  it('keeps the value under the prefix with its time to live, and removes it when taken', async () => {
    const client = await redis.client();
    const prefix = redis.prefix();
    const store = new RedisOneTimeStore(client, prefix);
    await store.put('k', 'v', 600_000);
    expect(await client.get(`${prefix}once:k`)).toBe('v');
    const ttl = await client.pttl(`${prefix}once:k`);
    expect(ttl).toBeGreaterThan(590_000);
    expect(ttl).toBeLessThanOrEqual(600_000);
    await store.take('k');
    expect(await client.exists(`${prefix}once:k`)).toBe(0);
  });

  it('uses cc: as its prefix unless told otherwise', async () => {
    const client = await redis.client();
    const key = `${redis.prefix()}default`;
    await new RedisOneTimeStore(client).put(key, 'v', 60_000);
    expect(await client.getdel(`cc:once:${key}`)).toBe('v');
  });

  it('without a connection put and take fail with StoreUnavailableError, never as "absent"', async () => {
    const client = createRedisClient(redis.url);
    client.disconnect();
    const store = new RedisOneTimeStore(client, redis.prefix());
    await expect(store.put('k', 'v', 60_000)).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.take('k')).rejects.toBeInstanceOf(StoreUnavailableError);
  });
});
