import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lineSink } from '../../test/capture';
import { freePort } from '../../test/engines/free-port';
import { type RedisEngine, startRedis } from '../../test/engines/redis';
import { createLogger } from '../logger';
import { noMetrics } from '../metrics/metrics';
import { RedisSessionStore } from '../sessions/redis-session-store';
import { StoreUnavailableError } from '../store-unavailable';
import { createRedisClient, redisReadiness, whenRedisReady } from './redis-client';

// Its own server: one test stops and restarts it.
let engine: RedisEngine;
beforeAll(async () => {
  engine = await startRedis();
});
afterAll(async () => engine?.stop());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Waits (a hang guard, not a timing bound) until `condition` holds. */
async function until(condition: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (await condition()) return;
    await sleep(50);
  }
  throw new Error('never happened');
}

describe('createRedisClient', () => {
  it('reports every command it sends as Redis latency, by command name and outcome', async () => {
    const seen: { engine: string; operation: string; seconds: number; ok: boolean }[] = [];
    const metrics = {
      ...noMetrics,
      observeEngine: (engine: string, operation: string, seconds: number, ok: boolean) =>
        seen.push({ engine, operation, seconds, ok }),
    };
    const client = createRedisClient(engine.url, { metrics });
    try {
      await whenRedisReady(client, 15_000);
      await client.set('cc-test:timed', 'v');
      await client.get('cc-test:timed');
      await client.call('NO-SUCH-COMMAND').catch(() => undefined);
      await new Promise((resolve) => setImmediate(resolve));
      const byName = (name: string) => seen.filter((s) => s.operation === name);
      expect(byName('set')).toEqual([expect.objectContaining({ engine: 'redis', ok: true })]);
      expect(byName('get')).toEqual([expect.objectContaining({ engine: 'redis', ok: true })]);
      expect(seen.find((s) => s.ok === false)).toBeDefined();
      expect(seen.every((s) => s.seconds >= 0 && s.seconds < 60)).toBe(true);
    } finally {
      client.disconnect();
    }
  });

  it('connecting, and connecting again after a restart, reports no failed command (a start is no store error)', async () => {
    const failed: string[] = [];
    const sent: string[] = [];
    const metrics = {
      ...noMetrics,
      observeEngine: (_engine: string, operation: string, _seconds: number, ok: boolean) => {
        sent.push(operation);
        if (!ok) failed.push(operation);
      },
    };
    const own = await startRedis();
    const client = createRedisClient(own.url, { metrics });
    try {
      expect(await whenRedisReady(client, 15_000)).toBe(true);
      await own.stop();
      await own.start();
      await until(async () => (await client.ping().catch(() => '')) === 'PONG');
      // The handshake went through the timed path (HELLO, INFO), and none of it failed.
      expect(sent).toContain('info');
      expect(failed.filter((name) => name !== 'ping')).toEqual([]);
      // A real refusal still counts.
      await client.call('NO-SUCH-COMMAND').catch(() => undefined);
      expect(failed.filter((name) => name !== 'ping')).toEqual(['NO-SUCH-COMMAND']);
    } finally {
      client.disconnect();
      await own.stop();
    }
  });

  it('a Redis that stops answering fails a command with StoreUnavailableError instead of waiting for it', async () => {
    const client = createRedisClient(engine.url);
    // A plain client (no timeout): its PING below waits for the pause to end.
    const pauser = new Redis(engine.url);
    try {
      await whenRedisReady(client, 15_000);
      const store = new RedisSessionStore(client, 'cc-test:');
      // Commands wait 3 s on the server; without the client's timeout this read would succeed.
      await pauser.call('CLIENT', 'PAUSE', '3000', 'ALL');
      const error = await store.get('k').then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect(String((error as Error).cause)).toMatch(/timed out/i);
    } finally {
      await pauser.ping();
      client.disconnect();
      pauser.disconnect();
    }
  });

  it('readiness passes while Redis answers and fails with StoreUnavailableError when it cannot be reached', async () => {
    const up = createRedisClient(engine.url);
    const nowhere = createRedisClient(`redis://127.0.0.1:${await freePort()}`);
    try {
      expect(await whenRedisReady(up, 15_000)).toBe(true);
      await expect(redisReadiness(up).check()).resolves.toBeUndefined();
      expect(redisReadiness(up).name).toBe('redis');
      expect(await whenRedisReady(nowhere, 300)).toBe(false);
      await expect(redisReadiness(nowhere).check()).rejects.toBeInstanceOf(StoreUnavailableError);
    } finally {
      up.disconnect();
      nowhere.disconnect();
    }
  });

  it('reconnects by itself once Redis is back, logging the outage once and the recovery once', async () => {
    const logs: string[] = [];
    const client = createRedisClient(engine.url, { logger: createLogger('info', lineSink(logs)) });
    try {
      expect(await whenRedisReady(client, 15_000)).toBe(true);
      await engine.stop();
      // Several reconnect attempts fail while it is down.
      await sleep(1_500);
      await expect(client.ping()).rejects.toThrow();
      await engine.start();
      expect(await whenRedisReady(client, 15_000)).toBe(true);
      expect(await client.ping()).toBe('PONG');
      const messages = logs.map((line) => JSON.parse(line).msg as string);
      expect(messages.filter((m) => m.startsWith('redis unreachable'))).toHaveLength(1);
      expect(messages.filter((m) => m === 'redis reachable again')).toHaveLength(1);
    } finally {
      client.disconnect();
    }
  });
});
