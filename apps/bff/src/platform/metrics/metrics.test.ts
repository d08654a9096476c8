// The metrics port, scraped after real requests through the real app, upstream client and
// simulator; the public port serves no metrics.
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/harness';
import { parseSamples, sampleValue } from '../../test/scrape';
import { testPan } from '../../test/test-pan';
import type { TestSession } from '../../test/test-session';
import { createUpstreamClient } from '../../upstream/client';
import type { AuditStore } from '../audit/audit-store';
import { createLogger } from '../logger';
import { countAuditFailures } from './counted-audit-store';
import { timedEngineCall } from './metrics';
import { type MetricsServer, startMetricsServer } from './metrics-server';
import { createPrometheusMetrics } from './prometheus-metrics';

const quiet = createLogger('silent');
let t: TestApp;
let registry: Registry;
let server: MetricsServer;
let finance: TestSession;
let admin: TestSession;

beforeAll(async () => {
  registry = new Registry();
  const metrics = createPrometheusMetrics(registry);
  t = await startTestApp({
    metrics,
    sim: { transactions: 100 },
    env: { rateLimits: { revealsPerMinute: 1 } },
  });
  server = await startMetricsServer({ registry, port: 0, host: '127.0.0.1', logger: quiet });
  finance = await t.signIn('finance');
  admin = await t.signIn('admin');
});
afterAll(async () => {
  await server.close();
  await t.close();
});

async function scrape() {
  const res = await fetch(`${server.url}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('text/plain');
  const text = await res.text();
  return { text, samples: parseSamples(text) };
}

const cardId = () => t.sim.data.cards()[0]?.id ?? '';

describe('request metrics', () => {
  it('count and time requests by route template and status, never by the path sent', async () => {
    const pan = testPan(7);
    expect((await t.request.get(`/api/cards/${cardId()}`).set(finance.headers())).status).toBe(200);
    // A card number where an id goes: refused, and counted under the template only.
    expect((await t.request.get(`/api/cards/${pan}`).set(finance.headers())).status).toBe(400);
    expect((await t.request.get(`/api/nothing/${pan}`).set(finance.headers())).status).toBe(404);
    expect((await t.request.get('/healthz')).status).toBe(200);

    const { text, samples } = await scrape();
    const get = (route: string, status: string) =>
      sampleValue(samples, 'bff_http_requests_total', { method: 'GET', route, status });
    expect(get('/api/cards/:id', '200')).toBe(1);
    expect(get('/api/cards/:id', '400')).toBe(1);
    expect(get('(unmatched)', '404')).toBe(1);
    expect(get('/healthz', '200')).toBe(1);
    expect(
      sampleValue(samples, 'bff_http_request_duration_seconds_count', {
        method: 'GET',
        route: '/api/cards/:id',
        status: '200',
      }),
    ).toBe(1);
    expect(
      sampleValue(samples, 'bff_http_requests_total', {
        method: 'POST',
        route: '/api/session',
        status: '200',
      }),
    ).toBe(2);
    expect(text).not.toContain(pan);
    expect(text).not.toContain(cardId());
  });

  it('count 429 refusals by their code', async () => {
    const reveal = () =>
      t.request
        .post(`/api/cards/${cardId()}/reveal`)
        .set(admin.headers())
        .send({ reason: 'checking a disputed charge' });
    expect((await reveal()).status).toBe(200);
    expect((await reveal()).status).toBe(429);
    const { samples } = await scrape();
    expect(
      sampleValue(samples, 'bff_rate_limit_refusals_total', {
        route: '/api/cards/:id/reveal',
        code: 'rate_limited',
      }),
    ).toBe(1);
  });
});

describe('upstream metrics', () => {
  it('count calls by operation and outcome, and the retries they took', async () => {
    const before = sampleValue((await scrape()).samples, 'bff_upstream_retries_total', {
      operation: 'GET /card/{id}',
      lane: 'reads',
    });
    t.sim.faults.enqueue({ kind: 'status', status: 503, route: 'GET /card/:id' });
    expect((await t.request.get(`/api/cards/${cardId()}`).set(finance.headers())).status).toBe(200);
    t.sim.faults.enqueue({ kind: 'status', status: 404, route: 'GET /card/:id' });
    expect((await t.request.get(`/api/cards/${cardId()}`).set(finance.headers())).status).toBe(404);

    const { samples } = await scrape();
    expect(
      sampleValue(samples, 'bff_upstream_retries_total', {
        operation: 'GET /card/{id}',
        lane: 'reads',
      }),
    ).toBe(before + 1);
    expect(
      sampleValue(samples, 'bff_upstream_calls_total', {
        operation: 'GET /card/{id}',
        outcome: 'not_found',
      }),
    ).toBe(1);
    expect(
      sampleValue(samples, 'bff_upstream_calls_total', {
        operation: 'GET /card/{id}',
        outcome: 'ok',
      }),
    ).toBeGreaterThanOrEqual(2);
    for (const lane of ['reads', 'bulk']) {
      const open = samples.find(
        (s) => s.name === 'bff_upstream_circuit_open' && s.labels.lane === lane,
      );
      expect(open?.value).toBe(0);
    }
  });

  it('count the reads that joined an identical call in flight', async () => {
    const count = () => t.sim.stats.count('GET /card');
    const coalesced = async () =>
      sampleValue((await scrape()).samples, 'bff_upstream_coalesced_reads_total', {
        operation: 'GET /card',
      });
    const before = { calls: count(), coalesced: await coalesced() };
    // The first call is held at the simulator, so the others arrive while it is in flight.
    t.sim.faults.enqueue({ kind: 'delay', ms: 300, route: 'GET /card' });
    const people = 8;
    const answers = await Promise.all(
      Array.from({ length: people }, () =>
        t.request.get('/api/cards?status=active').set(finance.headers()),
      ),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(people).fill(200));
    const calls = count() - before.calls;
    const joined = (await coalesced()) - before.coalesced;
    expect(joined).toBeGreaterThan(0);
    expect(joined + calls).toBe(people);
  });

  it('count the retries, and the calls an open circuit refused', async () => {
    const own = new Registry();
    const upstream = createUpstreamClient({
      baseUrl: t.simUrl,
      apiKey: t.apiKey,
      logger: quiet,
      metrics: createPrometheusMetrics(own),
      breakerThreshold: 2,
      halfOpenAfterMs: 60_000,
      random: () => 0,
    });
    const open = async () =>
      sampleValue(parseSamples(await own.metrics()), 'bff_upstream_circuit_open', {
        lane: 'reads',
      });
    try {
      expect(await open()).toBe(0);
      t.sim.faults.enqueue(
        ...Array.from({ length: 2 }, () => ({
          kind: 'status' as const,
          status: 503,
          route: 'GET /sub-account',
        })),
      );
      // The first 503 is retried; the second opens the circuit, so the call ends there.
      await expect(upstream.listSubAccounts({ requestId: 'req-circuit-1' }, {})).rejects.toThrow();
      expect(await open()).toBe(1);
      // The next call is refused without reaching the card service.
      const before = t.sim.stats.count('GET /sub-account');
      await expect(upstream.listSubAccounts({ requestId: 'req-circuit-2' }, {})).rejects.toThrow();
      expect(t.sim.stats.count('GET /sub-account')).toBe(before);
    } finally {
      t.sim.faults.clear();
      await upstream.close();
    }
    const samples = parseSamples(await own.metrics());
    const labels = { operation: 'GET /sub-account', lane: 'reads' };
    expect(sampleValue(samples, 'bff_upstream_retries_total', labels)).toBe(1);
    expect(sampleValue(samples, 'bff_upstream_circuit_refused_total', labels)).toBe(1);
    expect(
      sampleValue(samples, 'bff_upstream_calls_total', {
        operation: 'GET /sub-account',
        outcome: 'upstream_unavailable',
      }),
    ).toBe(2);
  });
});

describe('store metrics', () => {
  it('count audit records that could not be stored, by action, and still fail the write', async () => {
    const own = new Registry();
    const failing: AuditStore = {
      append: () => Promise.reject(new Error('disk full')),
      list: () => Promise.resolve({ items: [] }),
    };
    const audit = countAuditFailures(failing, createPrometheusMetrics(own));
    const record = { actor: 'a@example.test', action: 'card.reveal', outcome: 'success' } as const;
    await expect(audit.append({ ...record, requestId: 'r-1' })).rejects.toThrow('disk full');
    await expect(audit.append({ ...record, requestId: 'r-2' })).rejects.toThrow('disk full');
    const samples = parseSamples(await own.metrics());
    expect(sampleValue(samples, 'bff_audit_write_failures_total', { action: 'card.reveal' })).toBe(
      2,
    );
  });

  it('time engine operations by engine, operation and outcome', async () => {
    const own = new Registry();
    const metrics = createPrometheusMetrics(own);
    expect(await timedEngineCall(metrics, 'postgres', 'session.get', async () => 'value')).toBe(
      'value',
    );
    await expect(
      timedEngineCall(metrics, 'postgres', 'audit.append', () =>
        Promise.reject(new Error('timeout')),
      ),
    ).rejects.toThrow('timeout');
    const samples = parseSamples(await own.metrics());
    const count = (engine: string, operation: string, outcome: string) =>
      sampleValue(samples, 'bff_store_operation_duration_seconds_count', {
        engine,
        operation,
        outcome,
      });
    expect(count('postgres', 'session.get', 'ok')).toBe(1);
    expect(count('postgres', 'audit.append', 'error')).toBe(1);
  });
});

describe('where metrics are served', () => {
  it('the public port has no /metrics', async () => {
    const res = await t.request.get('/metrics').set('Accept', 'text/plain');
    expect(res.status).toBe(404);
    expect(res.text).not.toContain('# HELP');
    // Counted under the public port's catch-all, not under its path.
    const { samples } = await scrape();
    expect(
      sampleValue(samples, 'bff_http_requests_total', {
        method: 'GET',
        route: '(web)',
        status: '404',
      }),
    ).toBeGreaterThanOrEqual(1);
    expect(samples.some((s) => s.labels.route === '/metrics')).toBe(false);
  });

  it('the metrics port answers only GET /metrics', async () => {
    expect((await fetch(`${server.url}/`)).status).toBe(404);
    expect((await fetch(`${server.url}/metrics`, { method: 'POST' })).status).toBe(404);
    expect((await fetch(`${server.url}/metrics?x=1`)).status).toBe(200);
  });
});
