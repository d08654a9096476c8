import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisForTests, redisForTests, sleep } from '../../test/redis';
import { RedisSessionStore } from './redis-session-store';
import { sessionStoreContract } from './session-store.contract';

let redis: RedisForTests;
beforeAll(async () => {
  redis = await redisForTests();
});
afterAll(async () => redis?.close());

// Two clients: two replicas sharing one Redis.
sessionStoreContract('RedisSessionStore', async () => {
  const prefix = redis.prefix();
  return {
    a: new RedisSessionStore(await redis.client(), prefix),
    b: new RedisSessionStore(await redis.client(), prefix),
    pass: sleep,
  };
});

describe('RedisSessionStore', () => {
  it("gives the key the session's remaining lifetime as its TTL, under the prefix", async () => {
    const client = await redis.client();
    const prefix = redis.prefix();
    const store = new RedisSessionStore(client, prefix);
    await store.set('k', sampleRecord, 900_000);
    const ttl = await client.pttl(`${prefix}session:k`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(900_000);
  });

  it('reads a record it cannot understand as no session, not a failure', async () => {
    const client = await redis.client();
    const prefix = redis.prefix();
    const store = new RedisSessionStore(client, prefix);
    await client.set(`${prefix}session:broken`, '{not json');
    await client.set(`${prefix}session:odd`, JSON.stringify({ email: 'a@example.test' }));
    expect(await store.get('broken')).toBeUndefined();
    expect(await store.get('odd')).toBeUndefined();
  });
});

const sampleRecord = {
  email: 'ada@example.test',
  role: 'finance' as const,
  createdAt: 1,
  lastSeenAt: 2,
};
