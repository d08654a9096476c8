// A throw-away redis-server for tests and benchmarks: its own port, no persistence, stopped
// with the test. Debian's redis-server is installed by `pnpm test` (scripts/ensure-engines.mjs).
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { freePort, waitForPort } from './free-port';

export interface RedisEngine {
  /** `redis://127.0.0.1:PORT` */
  readonly url: string;
  readonly port: number;
  /** Stops the server (SIGTERM, waits for exit); `start` brings it back on the same port, empty. */
  stop(): Promise<void>;
  start(): Promise<void>;
}

const binary = process.env.REDIS_SERVER_PATH ?? '/usr/bin/redis-server';

/** Starts a redis-server on a free port. */
export async function startRedis(): Promise<RedisEngine> {
  if (!existsSync(binary)) {
    throw new Error(
      `No redis-server at ${binary}: run \`node scripts/ensure-engines.mjs\` (pnpm test does) or set REDIS_SERVER_PATH.`,
    );
  }
  const port = await freePort();
  let child: ChildProcess | undefined;
  const engine: RedisEngine = {
    url: `redis://127.0.0.1:${port}`,
    port,
    async start() {
      if (child) return;
      const started = spawn(
        binary,
        [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--save',
          '',
          '--appendonly',
          'no',
          '--loglevel',
          'warning',
        ],
        { stdio: ['ignore', 'ignore', 'inherit'] },
      );
      child = started;
      started.once('exit', () => {
        if (child === started) child = undefined;
      });
      await waitForPort(port);
    },
    async stop() {
      const running = child;
      if (!running) return;
      child = undefined;
      await new Promise<void>((resolve) => {
        running.once('exit', () => resolve());
        running.kill('SIGTERM');
      });
    },
  };
  await engine.start();
  return engine;
}

/**
 * A Redis URL for a test file: `TEST_REDIS_URL` when set (each caller should then use its own
 * key prefix), otherwise a server of its own. `stop` stops only a server this call started.
 */
export async function testRedis(): Promise<{ url: string; stop(): Promise<void> }> {
  const given = process.env.TEST_REDIS_URL;
  if (given) return { url: given, stop: async () => {} };
  const engine = await startRedis();
  return { url: engine.url, stop: () => engine.stop() };
}
