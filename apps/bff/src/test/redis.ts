// Test support (not a test file): one Redis per test file, clients that act as replicas, and
// a fresh key prefix per test so tests sharing a server (TEST_REDIS_URL) never meet.
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { createRedisClient, whenRedisReady } from '../platform/redis/redis-client';
import { testRedis } from './engines/redis';

export interface RedisForTests {
  url: string;
  /** A new connected client (one per simulated replica); closed by `close()`. */
  client(): Promise<Redis>;
  /** A key prefix no other test uses. */
  prefix(): string;
  close(): Promise<void>;
}

export async function redisForTests(): Promise<RedisForTests> {
  const server = await testRedis();
  const clients: Redis[] = [];
  return {
    url: server.url,
    async client() {
      const client = createRedisClient(server.url);
      clients.push(client);
      if (!(await whenRedisReady(client, 15_000))) throw new Error('test redis not reachable');
      return client;
    },
    prefix: () => `cc-test:${randomUUID()}:`,
    async close() {
      for (const client of clients) client.disconnect();
      await server.stop();
    },
  };
}

/** Waits real time (Redis keeps its TTLs by its own clock). */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
