import type { Redis } from 'ioredis';
import { redisCall } from '../redis/redis-errors';
import { redisScript } from '../redis/redis-script';
import { ONE_TIME_LIMITS, type OneTimeKind, type OneTimeStore } from './one-time-store';

// Each value is a key of its own with Redis's expiry (`<prefix>once:<kind>:<key>`), and a sorted
// set per kind (`<prefix>once-index:<kind>`) holds the live keys scored by their expiry on
// Redis's clock. A put drops the index's expired members, then the soonest-expiring live values
// while the kind is at its bound, then writes: one script, so replicas cannot pass the bound
// together, and a flood of one kind never touches another kind's keys.
const put = redisScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
redis.call('ZREM', KEYS[2], KEYS[1])
while redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[3]) do
  local oldest = redis.call('ZPOPMIN', KEYS[2])
  redis.call('DEL', oldest[1])
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ttl)
redis.call('ZADD', KEYS[2], now + ttl, KEYS[1])
if redis.call('PTTL', KEYS[2]) < ttl then redis.call('PEXPIRE', KEYS[2], ttl) end
return 1
`);

const take = redisScript(`
local value = redis.call('GETDEL', KEYS[1])
redis.call('ZREM', KEYS[2], KEYS[1])
return value
`);

export interface RedisOneTimeStoreOptions {
  prefix?: string;
  kind: OneTimeKind;
  /** Live values of this kind at most; ONE_TIME_LIMITS[kind] by default. */
  limit?: number;
}

/**
 * One-time values shared by every replica, read and deleted in one step on the server (GETDEL,
 * Redis 6.2 or later).
 */
export class RedisOneTimeStore implements OneTimeStore {
  private readonly prefix: string;
  private readonly index: string;
  private readonly limit: number;

  constructor(
    private readonly client: Redis,
    options: RedisOneTimeStoreOptions,
  ) {
    this.prefix = `${options.prefix ?? 'cc:'}once:${options.kind}:`;
    this.index = `${options.prefix ?? 'cc:'}once-index:${options.kind}`;
    this.limit = options.limit ?? ONE_TIME_LIMITS[options.kind];
  }

  async put(key: string, value: string, ttlMs: number): Promise<void> {
    // PX needs a whole number of at least 1.
    const px = Math.max(1, Math.ceil(ttlMs));
    await redisCall('one-time put', () =>
      put(this.client, [this.prefix + key, this.index], [value, px, this.limit]),
    );
  }

  async take(key: string): Promise<string | undefined> {
    const value = await redisCall('one-time take', () =>
      take(this.client, [this.prefix + key, this.index], []),
    );
    return typeof value === 'string' ? value : undefined;
  }
}
