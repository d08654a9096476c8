import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisForTests, redisForTests } from '../../test/redis';
import { createRedisClient } from '../redis/redis-client';
import { StoreUnavailableError } from '../store-unavailable';
import type { StoredPasskey } from './factor-store';
import { factorStoreContract } from './factor-store.contract';
import { RedisFactorStore } from './redis-factor-store';

let redis: RedisForTests;
beforeAll(async () => {
  redis = await redisForTests();
});
afterAll(async () => redis?.close());

// Two clients: two replicas sharing one Redis.
factorStoreContract('RedisFactorStore', async () => {
  const prefix = redis.prefix();
  return {
    a: new RedisFactorStore(await redis.client(), prefix),
    b: new RedisFactorStore(await redis.client(), prefix),
  };
});

const passkey: StoredPasskey = {
  id: 'AbC-123_x',
  publicKey: 'pQECAyYgASFYIA',
  counter: 3,
  transports: ['usb'],
  name: 'YubiKey',
  createdAt: 1_760_000_000_000,
};

describe('RedisFactorStore', () => {
  it('keeps a hash per person and every credential id under the prefix, with no TTL', async () => {
    const client = await redis.client();
    const prefix = redis.prefix();
    const store = new RedisFactorStore(client, prefix);
    await store.addPasskey('ada@example.test', passkey);
    await store.setTotpDisabled('ada@example.test', true);
    const person = `${prefix}factors:ada@example.test`;
    const fields = await client.hgetall(person);
    expect(Object.keys(fields).sort()).toEqual([`pk:${passkey.id}`, 'totpOff']);
    expect(JSON.parse(fields[`pk:${passkey.id}`] ?? '')).toEqual(passkey);
    expect(fields.totpOff).toBe('1');
    expect(await client.hgetall(`${prefix}passkey-ids`)).toEqual({
      [passkey.id]: 'ada@example.test',
    });
    expect(await client.ttl(person)).toBe(-1);
    expect(await client.ttl(`${prefix}passkey-ids`)).toBe(-1);
  });

  it('a passkey it cannot read is left out, not a failure of the whole read', async () => {
    const client = await redis.client();
    const prefix = redis.prefix();
    const store = new RedisFactorStore(client, prefix);
    await store.addPasskey('ada@example.test', passkey);
    await client.hset(
      `${prefix}factors:ada@example.test`,
      'pk:broken',
      '{not json',
      'pk:odd',
      '{"id":"odd"}',
    );
    expect((await store.get('ada@example.test')).passkeys).toEqual([passkey]);
  });

  it('still works after the server forgot its scripts', async () => {
    const client = await redis.client();
    const store = new RedisFactorStore(client, redis.prefix());
    expect(await store.addPasskey('ada@example.test', passkey)).toBe('added');
    await client.script('FLUSH');
    expect(await store.addPasskey('ada@example.test', passkey)).toBe('duplicate');
    expect(await store.renamePasskey('ada@example.test', passkey.id, 'Key')).toMatchObject({
      name: 'Key',
    });
  });

  it('uses cc: as its prefix unless told otherwise', async () => {
    const client = await redis.client();
    const email = `${redis.prefix()}@example.test`;
    const store = new RedisFactorStore(client);
    await store.addPasskey(email, { ...passkey, id: `default-${Date.now()}` });
    expect(await client.hlen(`cc:factors:${email}`)).toBe(1);
    const [field] = await client.hkeys(`cc:factors:${email}`);
    await client.hdel('cc:passkey-ids', field?.slice(3) ?? '');
    await client.del(`cc:factors:${email}`);
  });

  it('without a connection every call fails with StoreUnavailableError', async () => {
    const client = createRedisClient(redis.url);
    client.disconnect();
    const store = new RedisFactorStore(client, redis.prefix());
    const email = 'ada@example.test';
    for (const call of [
      () => store.get(email),
      () => store.addPasskey(email, passkey),
      () => store.renamePasskey(email, passkey.id, 'x'),
      () => store.removePasskey(email, passkey.id),
      () => store.setTotpDisabled(email, true),
      () => store.recordUse(email, passkey.id, 1, 1),
    ]) {
      await expect(call()).rejects.toBeInstanceOf(StoreUnavailableError);
    }
  });
});
