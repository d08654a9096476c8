import type { Redis } from 'ioredis';
import { redisCall } from '../redis/redis-errors';
import type { OneTimeStore } from './one-time-store';

/**
 * One-time values shared by every replica: `<prefix>once:<key>`, written with SET PX and read
 * with GETDEL (Redis 6.2 or later), so reading and deleting are one step on the server.
 */
export class RedisOneTimeStore implements OneTimeStore {
  constructor(
    private readonly client: Redis,
    private readonly prefix = 'cc:',
  ) {}

  async put(key: string, value: string, ttlMs: number): Promise<void> {
    // PX needs a whole number of at least 1.
    const px = Math.max(1, Math.ceil(ttlMs));
    await redisCall('one-time put', () => this.client.set(this.key(key), value, 'PX', px));
  }

  async take(key: string): Promise<string | undefined> {
    const value = await redisCall('one-time take', () => this.client.getdel(this.key(key)));
    return value ?? undefined;
  }

  private key(key: string): string {
    return `${this.prefix}once:${key}`;
  }
}
