import { RateLimiterRes } from 'rate-limiter-flexible';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisForTests, redisForTests } from '../../test/redis';
import { createRedisClient } from '../redis/redis-client';
import { StoreUnavailableError } from '../store-unavailable';
import { reserve } from './attempt-reservation';
import { rateLimitersContract } from './rate-limiters.contract';
import { consumeOrThrow } from './rate-limits';
import { redisRateLimiters } from './redis-rate-limiters';

let redis: RedisForTests;
beforeAll(async () => {
  redis = await redisForTests();
});
afterAll(async () => redis?.close());

// Two clients: two replicas sharing one Redis.
rateLimitersContract('redisRateLimiters', async () => {
  const prefix = redis.prefix();
  return {
    a: redisRateLimiters(await redis.client(), prefix),
    b: redisRateLimiters(await redis.client(), prefix),
  };
});

describe('redisRateLimiters', () => {
  it('keeps its counters under the prefix, with the window as their TTL', async () => {
    const client = await redis.client();
    const prefix = redis.prefix();
    const limiter = redisRateLimiters(
      client,
      prefix,
    )({
      keyPrefix: 'signin-address',
      points: 20,
      duration: 900,
    });
    await limiter.consume('198.51.100.4');
    const key = `${prefix}rl:signin-address:198.51.100.4`;
    expect(await client.get(key)).toBe('1');
    const ttl = await client.pttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(900_000);
  });

  it('a refusal is still a RateLimiterRes (429), not a store failure', async () => {
    const limiter = redisRateLimiters(
      await redis.client(),
      redis.prefix(),
    )({ keyPrefix: 'x', points: 1, duration: 60 });
    await limiter.consume('k');
    await expect(limiter.consume('k')).rejects.toBeInstanceOf(RateLimiterRes);
  });

  it('without a connection every operation fails at once with StoreUnavailableError, and so do reservations and consumeOrThrow', async () => {
    const client = createRedisClient(redis.url);
    client.disconnect();
    const limiter = redisRateLimiters(
      client,
      redis.prefix(),
    )({
      keyPrefix: 'x',
      points: 5,
      duration: 60,
    });
    const failures = [
      limiter.consume('k'),
      limiter.penalty('k'),
      limiter.reward('k'),
      limiter.get('k'),
      limiter.delete('k'),
      limiter.set('k', 1, 60),
      limiter.block('k', 60),
      reserve([{ limiter, key: 'k' }]),
      consumeOrThrow(limiter, 'k', 'slow down'),
    ];
    for (const failure of failures) {
      const error = await failure.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect((error as StoreUnavailableError).engine).toBe('redis');
    }
  });
});
