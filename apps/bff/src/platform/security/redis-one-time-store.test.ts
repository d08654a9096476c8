import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisForTests, redisForTests, sleep } from '../../test/redis';
import { createRedisClient } from '../redis/redis-client';
import { StoreUnavailableError } from '../store-unavailable';
import { ONE_TIME_LIMITS } from './one-time-store';
import { oneTimeStoreContract } from './one-time-store.contract';
import { RedisOneTimeStore } from './redis-one-time-store';

let redis: RedisForTests;
beforeAll(async () => {
  redis = await redisForTests();
});
afterAll(async () => redis?.close());

// Two clients: two replicas sharing one Redis; expiry is Redis's own, so real time passes.
oneTimeStoreContract('RedisOneTimeStore', async (options) => {
  const prefix = redis.prefix();
  const kind = 'challenges' as const;
  return {
    a: new RedisOneTimeStore(await redis.client(), { prefix, kind, ...options }),
    b: new RedisOneTimeStore(await redis.client(), { prefix, kind, ...options }),
    pass: sleep,
  };
});

describe('RedisOneTimeStore', () => {
  it('keeps the value under its kind with its time to live, indexed, and removes both when taken', async () => {
    const client = await redis.client();
    const prefix = redis.prefix();
    const store = new RedisOneTimeStore(client, { prefix, kind: 'ssoPending' });
    await store.put('k', 'v', 600_000);
    expect(await client.get(`${prefix}once:ssoPending:k`)).toBe('v');
    const ttl = await client.pttl(`${prefix}once:ssoPending:k`);
    expect(ttl).toBeGreaterThan(590_000);
    expect(ttl).toBeLessThanOrEqual(600_000);
    expect(await client.zcard(`${prefix}once-index:ssoPending`)).toBe(1);
    expect(await client.pttl(`${prefix}once-index:ssoPending`)).toBeGreaterThan(590_000);
    await store.take('k');
    expect(await client.exists(`${prefix}once:ssoPending:k`)).toBe(0);
    expect(await client.zcard(`${prefix}once-index:ssoPending`)).toBe(0);
  });

  it('uses cc: as its prefix and its kind’s bound unless told otherwise', async () => {
    const client = await redis.client();
    const key = `${redis.prefix()}default`;
    const store = new RedisOneTimeStore(client, { kind: 'challenges' });
    await store.put(key, 'v', 60_000);
    expect(await client.get(`cc:once:challenges:${key}`)).toBe('v');
    expect(
      await client.zscore('cc:once-index:challenges', `cc:once:challenges:${key}`),
    ).not.toBeNull();
    expect(await store.take(key)).toBe('v');
    expect(await client.zscore('cc:once-index:challenges', `cc:once:challenges:${key}`)).toBeNull();
    expect(ONE_TIME_LIMITS.challenges).toBeGreaterThan(ONE_TIME_LIMITS.ssoPending);
  });

  it('a flood of one kind at its bound never evicts the other kind’s values', async () => {
    const client = await redis.client();
    const prefix = redis.prefix();
    const pending = new RedisOneTimeStore(client, { prefix, kind: 'ssoPending', limit: 5 });
    const challenges = new RedisOneTimeStore(client, { prefix, kind: 'challenges', limit: 5 });
    await challenges.put('a-person', 'challenge', 60_000);
    await Promise.all(
      Array.from({ length: 50 }, (_, i) => pending.put(`flood-${i}`, 'x'.repeat(100), 60_000)),
    );
    expect(await client.zcard(`${prefix}once-index:ssoPending`)).toBe(5);
    expect((await client.keys(`${prefix}once:ssoPending:*`)).length).toBe(5);
    expect(await challenges.take('a-person')).toBe('challenge');
  });

  it('expired values leave the index at the next put, so they hold no place', async () => {
    const client = await redis.client();
    const prefix = redis.prefix();
    const store = new RedisOneTimeStore(client, { prefix, kind: 'ssoPending', limit: 2 });
    await store.put('short-1', 'v', 50);
    await store.put('short-2', 'v', 50);
    await sleep(150);
    await store.put('long-1', 'v', 60_000);
    await store.put('long-2', 'v', 60_000);
    expect(await client.zcard(`${prefix}once-index:ssoPending`)).toBe(2);
    expect(await store.take('long-1')).toBe('v');
    expect(await store.take('long-2')).toBe('v');
  });

  it('without a connection put and take fail with StoreUnavailableError, never as "absent"', async () => {
    const client = createRedisClient(redis.url);
    client.disconnect();
    const store = new RedisOneTimeStore(client, { prefix: redis.prefix(), kind: 'challenges' });
    await expect(store.put('k', 'v', 60_000)).rejects.toThrow(
      new StoreUnavailableError('redis', 'one-time put'),
    );
    await expect(store.take('k')).rejects.toThrow(
      new StoreUnavailableError('redis', 'one-time take'),
    );
    await expect(store.take('k')).rejects.toBeInstanceOf(StoreUnavailableError);
  });
});
