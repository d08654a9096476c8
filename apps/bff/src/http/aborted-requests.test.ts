// A request the browser abandons before its answer (navigated away, fetch cancelled) is logged
// as "request aborted" with `aborted: true` and counted with status 499, not as the 200 Node
// presets: over real HTTP, the card service holding the read until the client has gone.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPrometheusMetrics } from '../platform/metrics/prometheus-metrics';
import { startTestApp, type TestApp, type TestSession } from '../test/harness';
import { parseSamples, sampleValue } from '../test/scrape';

const API_KEY = 'aborted-requests-key';

/** Answers lists at once; holds each transaction read until `release`. */
async function holdingService() {
  const held: http.ServerResponse[] = [];
  const waiters: (() => void)[] = [];
  const server = http.createServer((req, res) => {
    if (req.url?.startsWith('/transaction/')) {
      held.push(res);
      for (const wake of waiters.splice(0)) wake();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"items":[],"metadata":{}}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** Resolves when the next transaction read arrives (and is held). */
    nextHeld: () => new Promise<void>((resolve) => void waiters.push(resolve)),
    release() {
      for (const res of held.splice(0)) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            id: 'tx held',
            date: '2026-01-01T00:00:00.000Z',
            description: 'Coffee',
            amountCents: -450,
            status: 'settled',
            referenceNumber: 'r',
          }),
        );
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let service: Awaited<ReturnType<typeof holdingService>>;
let registry: Registry;
let t: TestApp;
let finance: TestSession;
beforeAll(async () => {
  service = await holdingService();
  registry = new Registry();
  t = await startTestApp({
    upstream: { url: service.url, apiKey: API_KEY },
    metrics: createPrometheusMetrics(registry),
  });
  finance = await t.signIn('finance');
});
afterEach(() => service.release());
afterAll(async () => {
  await t.close();
  await service.close();
});

interface Line {
  msg: string;
  req?: { id?: string; route?: string };
  res?: { statusCode?: number };
  aborted?: boolean;
}
const lineOf = (requestId: string) =>
  vi.waitFor(() => {
    const found = t.logs.map((l) => JSON.parse(l) as Line).find((l) => l.req?.id === requestId);
    if (!found) throw new Error(`no request line for ${requestId}`);
    return found;
  });

async function count(status: string) {
  const samples = parseSamples(await registry.metrics());
  return sampleValue(samples, 'bff_http_requests_total', {
    method: 'GET',
    route: '/api/transactions/:id',
    status,
  });
}

describe('a request whose client goes away before the answer', () => {
  it('is logged as aborted with 499 and counted under 499, never 200', async () => {
    const requestId = 'abandoned-read-1';
    const url = new URL(`/api/transactions/${encodeURIComponent('tx held')}`, t.url);
    const arrived = service.nextHeld();
    const req = http.get(url, { headers: { ...finance.headers(), 'X-Request-Id': requestId } });
    req.on('error', () => {}); // destroyed below, on purpose
    await arrived;
    req.destroy();

    const line = await lineOf(requestId);
    expect(line).toMatchObject({
      msg: 'request aborted',
      aborted: true,
      req: { route: 'GET /api/transactions/:id' },
      res: { statusCode: 499 },
    });
    service.release();
    expect(await count('499')).toBe(1);
    expect(await count('200')).toBe(0);
  });

  it('one that finishes is still a completed 200', async () => {
    const arrived = service.nextHeld();
    const answer = t.request
      .get(`/api/transactions/${encodeURIComponent('tx held')}`)
      .set(finance.headers());
    const done = answer.then((res) => res);
    await arrived;
    service.release();
    const res = await done;
    expect(res.status).toBe(200);
    const line = await lineOf(res.headers['x-request-id'] as string);
    expect(line).toMatchObject({ msg: 'request completed', res: { statusCode: 200 } });
    expect(line.aborted).toBeUndefined();
    expect(await count('200')).toBe(1);
  });
});
