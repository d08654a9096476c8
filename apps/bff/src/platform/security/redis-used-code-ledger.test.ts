import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisForTests, redisForTests } from '../../test/redis';
import { createRedisClient } from '../redis/redis-client';
import { StoreUnavailableError } from '../store-unavailable';
import { RedisUsedCodeLedger } from './redis-used-code-ledger';
import { usedCodeLedgerContract } from './used-code-ledger.contract';

let redis: RedisForTests;
beforeAll(async () => {
  redis = await redisForTests();
});
afterAll(async () => redis?.close());

// Two clients: two replicas sharing one Redis.
usedCodeLedgerContract('RedisUsedCodeLedger', async () => {
  const prefix = redis.prefix();
  return {
    a: new RedisUsedCodeLedger(await redis.client(), prefix),
    b: new RedisUsedCodeLedger(await redis.client(), prefix),
  };
});

describe('RedisUsedCodeLedger', () => {
  it('keeps the last step under the prefix for a few minutes, not forever', async () => {
    const client = await redis.client();
    const prefix = redis.prefix();
    await new RedisUsedCodeLedger(client, prefix).claim('ada@example.test', 1234);
    expect(await client.get(`${prefix}totp-used:ada@example.test`)).toBe('1234');
    const ttl = await client.ttl(`${prefix}totp-used:ada@example.test`);
    expect(ttl).toBeGreaterThan(60);
    expect(ttl).toBeLessThanOrEqual(300);
  });

  it('still works after the server forgot its scripts', async () => {
    const client = await redis.client();
    const ledger = new RedisUsedCodeLedger(client, redis.prefix());
    expect(await ledger.claim('ada@example.test', 1)).toBe(true);
    await client.script('FLUSH');
    expect(await ledger.claim('ada@example.test', 2)).toBe(true);
    expect(await ledger.claim('ada@example.test', 2)).toBe(false);
  });

  it('without a connection a claim fails with StoreUnavailableError, never as "accepted"', async () => {
    const client = createRedisClient(redis.url);
    client.disconnect();
    await expect(
      new RedisUsedCodeLedger(client, redis.prefix()).claim('ada@example.test', 1),
    ).rejects.toBeInstanceOf(StoreUnavailableError);
  });
});
