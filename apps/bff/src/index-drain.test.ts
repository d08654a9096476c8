// The real entry point in production mode, as one node process receiving SIGTERM: an export
// still running when the grace period ends is broken off (never a clean end), logged with its
// row count, and the process exits 0. Also the start-up line and the metrics port.

import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CardService, createCardService } from '@card-console/card-service-sim';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BffProcess, productionEnv, startBffProcess } from './test/engines/bff-process';
import { parseSamples, sampleValue } from './test/scrape';
import { buildTestUsers } from './test/test-users';

const origin = 'https://cards.example.test';
let dir: string;
let sim: CardService;
let bff: BffProcess | undefined;
let finance: { email: string; password: string };
let env: Record<string, string>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bff-drain-'));
  const apiKey = `test-key-${randomBytes(16).toString('hex')}`;
  sim = createCardService({ apiKey, transactions: 20_000 });
  const { url } = await sim.listen(0, '127.0.0.1');
  const users = await buildTestUsers('production', dir);
  finance = users.credentials.finance;
  env = productionEnv(
    { cardServiceUrl: url, apiKey, usersFile: users.usersFile, origin, dataDir: dir },
    { SHUTDOWN_GRACE_SECONDS: '1', METRICS_PORT: '0' },
  );
}, 60_000);
afterAll(async () => {
  bff?.kill('SIGKILL');
  await sim.close();
  await rm(dir, { recursive: true, force: true, maxRetries: 5 });
});

async function signIn(url: string): Promise<string> {
  const res = await fetch(`${url}/api/session`, {
    method: 'POST',
    headers: { 'X-CSRF': '1', Origin: origin, 'Content-Type': 'application/json' },
    body: JSON.stringify({ email: finance.email, password: finance.password }),
  });
  expect(res.status).toBe(200);
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  expect(cookie).toMatch(/^__Host-cc_session=./);
  return cookie;
}

const line = (p: BffProcess, msg: string | RegExp) =>
  p.logs.find((l) => (typeof msg === 'string' ? l.msg === msg : msg.test(String(l.msg))));

async function until<T>(find: () => T | undefined, what: string): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const found = find();
    if (found !== undefined) return found;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`never saw ${what}`);
}

describe('SIGTERM during a CSV export', () => {
  it('breaks the download off after the grace period, logs its rows, and exits 0', async () => {
    const p = await startBffProcess(env);
    bff = p;
    // The start-up line names the public origin, where sign-in works.
    const up = await until(() => line(p, /is up/), 'the start-up line');
    expect(up.msg).toBe(`Card Console (production) is up: open ${origin}`);
    const served = await until(() => line(p, 'Prometheus metrics are served'), 'metrics');
    const metricsUrl = String(served.metrics);
    expect(metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);

    const cookie = await signIn(p.url);
    const scraped = parseSamples(await (await fetch(metricsUrl)).text());
    expect(
      sampleValue(scraped, 'bff_http_requests_total', {
        method: 'POST',
        route: '/api/session',
        status: '200',
      }),
    ).toBe(1);
    expect((await fetch(`${p.url}/metrics`, { headers: { Accept: 'text/plain' } })).status).toBe(
      404,
    );

    // Every page now takes a while: the export cannot finish within the 1 s grace.
    sim.faults.set({ latencyMs: 300 });
    const sub = sim.data.subAccounts()[0]?.id ?? '';
    const res = await fetch(`${p.url}/api/transactions/export.csv?subAccountId=${sub}`, {
      headers: { 'X-CSRF': '1', Cookie: cookie },
    });
    expect(res.status).toBe(200);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = '';
    const first = await reader.read();
    text += decoder.decode(first.value, { stream: true });
    expect(text.startsWith('id,')).toBe(true);

    p.kill('SIGTERM');
    // Read on: the body must break off (a rejected read), never end as if complete.
    let ended = false;
    let broke: unknown;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) {
          ended = true;
          break;
        }
        text += decoder.decode(value, { stream: true });
      }
    } catch (error) {
      broke = error;
    }
    expect(ended).toBe(false);
    expect(broke).toBeInstanceOf(Error);

    expect(await p.exited).toBe(0);
    const cut = line(p, /^csv export cut/);
    expect(cut?.level).toBe(40);
    const rows = cut?.rows as number;
    expect(Number.isInteger(rows)).toBe(true);
    // Whatever reached the client is at most what the log says went out.
    const received = text.split('\n').length - 2; // the header row, and the partial last line
    expect(received).toBeLessThanOrEqual(rows);
    expect(line(p, 'grace period over: cutting the requests still running')).toBeDefined();
    expect(line(p, 'stopped')).toBeDefined();
    // Never reported as finished, nor as the client leaving.
    expect(line(p, 'csv export finished')).toBeUndefined();
    expect(line(p, /client went away/)).toBeUndefined();
  }, 120_000);
});

describe('SIGTERM with nothing in flight', () => {
  it('stops at once with exit code 0', async () => {
    sim.faults.clear();
    const p = await startBffProcess(env);
    bff = p;
    p.kill('SIGTERM');
    expect(await p.exited).toBe(0);
    expect(line(p, 'stopped')).toBeDefined();
    expect(line(p, /grace period over/)).toBeUndefined();
  }, 60_000);
});
