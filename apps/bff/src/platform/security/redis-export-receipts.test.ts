import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisForTests, redisForTests, sleep } from '../../test/redis';
import { createRedisClient } from '../redis/redis-client';
import { StoreUnavailableError } from '../store-unavailable';
import { exportReceiptsContract } from './export-receipts.contract';
import { RedisExportReceipts } from './redis-export-receipts';

let redis: RedisForTests;
let one: Redis;
let two: Redis;
beforeAll(async () => {
  redis = await redisForTests();
  one = await redis.client();
  two = await redis.client();
});
afterAll(async () => redis?.close());

exportReceiptsContract(
  'RedisExportReceipts',
  ({ ttlMs }) =>
    new RedisExportReceipts(one, { prefix: redis.prefix(), ...(ttlMs ? { ttlMs } : {}) }),
  {
    // Two clients: two replicas sharing one Redis.
    replicas: () => {
      const prefix = redis.prefix();
      return [new RedisExportReceipts(one, { prefix }), new RedisExportReceipts(two, { prefix })];
    },
  },
);

describe('RedisExportReceipts', () => {
  it('keeps each receipt under its prefix with an expiry, never for ever', async () => {
    const prefix = redis.prefix();
    const receipts = new RedisExportReceipts(one, { prefix });
    await receipts.record('ada@example.test', 'req-00000001', { rows: 2, bytes: 20 });
    const keys = await one.keys(`${prefix}*`);
    expect(keys).toEqual([`${prefix}export-receipt:ada@example.test/req-00000001`]);
    const ttl = await one.pttl(keys[0] as string);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(15 * 60_000);
  });

  it('a value it did not write is no receipt', async () => {
    const prefix = redis.prefix();
    const receipts = new RedisExportReceipts(one, { prefix });
    await one.set(`${prefix}export-receipt:ada@example.test/req-00000001`, 'not json');
    await one.set(`${prefix}export-receipt:ada@example.test/req-00000002`, '{"rows":-1}');
    expect(await receipts.find('ada@example.test', 'req-00000001')).toBeUndefined();
    expect(await receipts.find('ada@example.test', 'req-00000002')).toBeUndefined();
  });

  it('without a connection, recording and finding fail with StoreUnavailableError', async () => {
    const client = createRedisClient(redis.url);
    while (client.status !== 'ready') await sleep(20);
    const receipts = new RedisExportReceipts(client, { prefix: redis.prefix() });
    client.disconnect();
    await expect(
      receipts.record('ada@example.test', 'req-00000001', { rows: 1, bytes: 1 }),
    ).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(receipts.find('ada@example.test', 'req-00000001')).rejects.toBeInstanceOf(
      StoreUnavailableError,
    );
  });
});
