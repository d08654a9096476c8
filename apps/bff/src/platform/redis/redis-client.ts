// The one Redis connection a BFF replica uses, made in the composition root and handed to the
// stores. Tuned to fail fast: a request never waits on a Redis that is gone.
import { type Command, Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Metrics } from '../metrics/metrics';
import { StoreUnavailableError } from '../store-unavailable';

/** Longest a command may take before it fails; Redis answers in well under a millisecond. */
export const REDIS_COMMAND_TIMEOUT_MS = 1_000;

export interface RedisClientOptions {
  /** Connection lost / back again, once each per outage (never the URL: it may hold a password). */
  logger?: Logger;
  /** Each command's round trip, by command name (`get`, `set`, `evalsha`…), as engine latency. */
  metrics?: Metrics;
}

/**
 * A client that never queues a command while disconnected (it fails at once, the store turns
 * that into a 503) and never resends one after a reconnect (an INCR or a lock ticket sent
 * twice would count twice). It keeps reconnecting in the background, at most a second apart,
 * so the replica recovers without a restart once Redis is back.
 */
export function createRedisClient(url: string, options: RedisClientOptions = {}): Redis {
  const client = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    connectTimeout: 2_000,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
    // ioredis otherwise sends CLIENT SETINFO (library name and version) at every connect, which
    // Redis before 7.2 refuses (Debian 12 ships 7.0): ioredis ignores the refusal, but the
    // command timing below would count two failed store operations at each start and reconnect,
    // and a store-error alert would fire after every deploy. The library's name is no loss.
    disableClientInfo: true,
  });
  let down = false;
  const lost = (error?: Error) => {
    if (down) return;
    down = true;
    options.logger?.warn(
      error ? { err: error } : {},
      'redis unreachable: requests that need it get 503 while it reconnects in the background',
    );
  };
  if (options.metrics) timeCommands(client, options.metrics);
  // Without an error listener ioredis prints every failed reconnect to the console.
  client.on('error', lost);
  // A server that closes the connection cleanly emits no error, only this.
  client.on('reconnecting', () => lost());
  client.on('ready', () => {
    if (!down) return;
    down = false;
    options.logger?.info('redis reachable again');
  });
  return client;
}

/**
 * Reports every command's round trip. ioredis has no per-command hook, so the one method all
 * commands go through (scripts and the rate limiter's calls included) is wrapped, once, here.
 */
function timeCommands(client: Redis, metrics: Metrics): void {
  const send = client.sendCommand.bind(client);
  client.sendCommand = (command: Command, stream?: Parameters<Redis['sendCommand']>[1]) => {
    const started = performance.now();
    const seconds = () => (performance.now() - started) / 1000;
    command.promise.then(
      () => metrics.observeEngine('redis', command.name, seconds(), true),
      () => metrics.observeEngine('redis', command.name, seconds(), false),
    );
    return send(command, stream);
  };
}

/** Resolves true once the client is ready, or false after `timeoutMs` (it keeps trying). */
export function whenRedisReady(client: Redis, timeoutMs: number): Promise<boolean> {
  if (client.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      client.off('ready', onReady);
      resolve(false);
    }, timeoutMs);
    const onReady = () => {
      clearTimeout(timer);
      resolve(true);
    };
    client.once('ready', onReady);
  });
}

/** For `/readyz`: a PING, bounded by the client's command timeout. */
export function redisReadiness(client: Redis) {
  return {
    name: 'redis' as const,
    async check(): Promise<void> {
      try {
        await client.ping();
      } catch (error) {
        throw new StoreUnavailableError('redis', 'ping', { cause: error });
      }
    },
  };
}
