// Test helpers for the upstream client (not a test file): a simulator on loopback, a client
// wired to it with recorded sleeps, and a logger whose lines are captured.
import { createCardService } from '@card-console/card-service-sim';
import pino, { type Logger } from 'pino';
import { afterAll, afterEach, beforeAll } from 'vitest';
import {
  createUpstreamClient,
  type UpstreamClient,
  type UpstreamClientOptions,
} from '../upstream/client';

export const TEST_API_KEY = 'test-key-7f3a9c1e5b';

export type Sim = ReturnType<typeof createCardService>;

export interface LogCapture {
  logger: Logger;
  lines: () => Array<Record<string, unknown> & { level: number; msg: string }>;
  raw: () => string;
}

/** `onLine` sees each line as it is written (parsed). */
export function captureLogs(onLine?: (line: Record<string, unknown>) => void): LogCapture {
  const chunks: string[] = [];
  const write = (line: string) => {
    chunks.push(line);
    onLine?.(JSON.parse(line));
  };
  const logger = pino({ level: 'debug' }, { write });
  return {
    logger,
    raw: () => chunks.join(''),
    lines: () => chunks.map((c) => JSON.parse(c)),
  };
}

/** One simulator for a whole test file; its faults and counters are cleared after each test. */
export function useSimulator(options: Parameters<typeof createCardService>[0] = {}) {
  const upstream = {} as { sim: Sim; url: string };
  beforeAll(async () => {
    Object.assign(upstream, await startSim(options));
  });
  afterAll(async () => upstream.sim.close());
  afterEach(() => {
    upstream.sim.faults.clear();
    upstream.sim.stats.reset();
  });
  return upstream;
}

export async function startSim(options: Parameters<typeof createCardService>[0] = {}) {
  const sim = createCardService({ apiKey: TEST_API_KEY, seed: 7, ...options });
  const { url } = await sim.listen(0, '127.0.0.1');
  return { sim, url };
}

export interface TestClient {
  client: UpstreamClient;
  sleeps: number[];
  logs: LogCapture;
}

/** Waits that were slept: a retry's backoff and a bulk call held back, read from the log. */
const WAITS = new Set(['upstream retry', 'bulk call held back']);

/** A client on the simulator; `sleeps` lists the waits it took (really waited), in order. */
export function testClient(url: string, options: Partial<UpstreamClientOptions> = {}): TestClient {
  const sleeps: number[] = [];
  const logs = captureLogs((line) => {
    if (WAITS.has(String(line.msg))) sleeps.push(Number(line.waitMs));
  });
  const client = createUpstreamClient({
    baseUrl: url,
    apiKey: TEST_API_KEY,
    logger: logs.logger,
    attemptTimeoutMs: 2_000,
    deadlineMs: 5_000,
    random: () => 0.5,
    now: Date.now,
    ...options,
  });
  return { client, sleeps, logs };
}

export const ctx = (role: 'finance' | 'admin' = 'finance', requestId = 'req-test-1') => ({
  requestId,
  role,
});
