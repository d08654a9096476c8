// /readyz against the real simulator: every dependency named with its state, a clear reason
// for each one that fails, and no check at all once shutdown has begun.
import { apiErrorBodySchema } from '@card-console/shared/api/error';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { READY_CHECK_TIMEOUT_MS, READY_CHECK_TTL_MS } from '../../http/health-router';
import { startTestApp, type TestApp } from '../../test/harness';
import { NotReadyError, type ReadinessCheck } from './readiness';

/** A dependency whose state the test sets: a stand-in for PostgreSQL, never an engine itself. */
function dependency(name: ReadinessCheck['name']) {
  const state = { calls: 0, outcome: (): Promise<void> => Promise.resolve() };
  const check: ReadinessCheck = {
    name,
    check: () => {
      state.calls += 1;
      return state.outcome();
    },
  };
  return { check, state };
}

function notReadyBody(res: { status: number; body: unknown; headers: Record<string, unknown> }) {
  expect(res.status).toBe(503);
  expect(res.headers['retry-after']).toBe('5');
  const body = apiErrorBodySchema.parse(res.body);
  expect(body.requestId).toBe(res.headers['x-request-id']);
  // The error body's schema keeps its own members only; `checks` is /readyz's own.
  return { ...body, checks: (res.body as { checks?: Record<string, string> }).checks };
}

describe('with the card service and another dependency', () => {
  let t: TestApp;
  let draining = false;
  const database = dependency('postgres');
  beforeAll(async () => {
    t = await startTestApp({
      sim: { transactions: 50 },
      readiness: [database.check],
      isDraining: () => draining,
    });
  });
  afterAll(() => t.close());
  afterEach(() => {
    t.clock.advance(READY_CHECK_TTL_MS);
    database.state.outcome = () => Promise.resolve();
    draining = false;
  });

  it('answers ready naming every dependency, one check of each for probes at the same time', async () => {
    const upstreamBefore = t.sim.stats.count('GET /sub-account');
    const databaseBefore = database.state.calls;
    const probes = await Promise.all(Array.from({ length: 6 }, () => t.request.get('/readyz')));
    for (const res of probes) {
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'ready', checks: { upstream: 'ok', postgres: 'ok' } });
    }
    expect(t.sim.stats.count('GET /sub-account')).toBe(upstreamBefore + 1);
    expect(database.state.calls).toBe(databaseBefore + 1);
  });

  it('names the dependency that fails, with its reason, while the others are fine', async () => {
    database.state.outcome = () => Promise.reject(new NotReadyError('PostgreSQL did not answer'));
    const body = notReadyBody(await t.request.get('/readyz'));
    expect(body.code).toBe('not_ready');
    expect(body.detail).toBe('Not ready: PostgreSQL did not answer.');
    expect(body.checks).toEqual({ upstream: 'ok', postgres: 'PostgreSQL did not answer' });
  });

  it('does not show an unexpected error text (it may hold an address), only logs it', async () => {
    database.state.outcome = () =>
      Promise.reject(
        new Error('connect ECONNREFUSED postgres://app:s3cret-pass@10.0.0.9:5432/cards'),
      );
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const res = await t.request
      .get('/readyz')
      .set('traceparent', `00-${traceId}-00f067aa0ba902b7-01`);
    const body = notReadyBody(res);
    expect(body.checks?.postgres).toBe('PostgreSQL did not answer the readiness check');
    expect(JSON.stringify(body)).not.toContain('s3cret');
    const line = JSON.parse(t.logs.find((l) => l.includes('ECONNREFUSED')) ?? '{}');
    expect(line).toMatchObject({ dependency: 'postgres', requestId: body.requestId, traceId });
  });

  it(
    'answers not ready in bounded time when a check hangs',
    async () => {
      database.state.outcome = () => new Promise<void>(() => {});
      const body = notReadyBody(await t.request.get('/readyz'));
      expect(body.checks).toEqual({
        upstream: 'ok',
        postgres: 'PostgreSQL did not answer in time',
      });
    },
    READY_CHECK_TIMEOUT_MS + 10_000,
  );

  it('reports both when the card service and the other dependency fail', async () => {
    database.state.outcome = () => Promise.reject(new NotReadyError('PostgreSQL is starting up'));
    t.sim.faults.enqueue({ kind: 'status', status: 500 });
    const body = notReadyBody(await t.request.get('/readyz'));
    expect(body.checks).toEqual({
      upstream: 'the card service answered with an error',
      postgres: 'PostgreSQL is starting up',
    });
    expect(body.detail).toBe(
      'Not ready: the card service answered with an error; PostgreSQL is starting up.',
    );
  });

  it('fails at once while draining, without calling any dependency', async () => {
    draining = true;
    const upstreamBefore = t.sim.stats.total();
    const databaseBefore = database.state.calls;
    const body = notReadyBody(await t.request.get('/readyz'));
    expect(body.code).toBe('shutting_down');
    expect(t.sim.stats.total()).toBe(upstreamBefore);
    expect(database.state.calls).toBe(databaseBefore);
    // /healthz still answers: the process is alive, only leaving.
    expect((await t.request.get('/healthz')).status).toBe(200);
  });

  it("the balancer's check says this replica serves while every shared dependency is down, without asking them", async () => {
    database.state.outcome = () => Promise.reject(new NotReadyError('PostgreSQL did not answer'));
    t.sim.faults.enqueue({ kind: 'status', status: 500 });
    const upstreamBefore = t.sim.stats.total();
    const databaseBefore = database.state.calls;
    const res = await t.request.get('/readyz/replica');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'serving' });
    expect(res.headers['cache-control']).toBe('no-store');
    expect(t.sim.stats.total()).toBe(upstreamBefore);
    expect(database.state.calls).toBe(databaseBefore);
    // Operators still see the outage on /readyz.
    expect(notReadyBody(await t.request.get('/readyz')).code).toBe('not_ready');
    t.sim.faults.clear();
  });

  it("the balancer's check fails at once while draining, so the replica leaves the pool", async () => {
    expect((await t.request.get('/readyz/replica')).status).toBe(200);
    draining = true;
    const body = notReadyBody(await t.request.get('/readyz/replica'));
    expect(body.code).toBe('shutting_down');
  });
});

describe('the card service', () => {
  it('refusing the API key is reported as exactly that, not as "not reachable"', async () => {
    // The simulator expects another key: every call the BFF makes gets a real 403.
    const t = await startTestApp({ sim: { apiKey: 'a-different-program-key', transactions: 50 } });
    try {
      const body = notReadyBody(await t.request.get('/readyz'));
      expect(body.detail).toBe('Not ready: the card service refused the API key.');
      expect(body.checks).toEqual({ upstream: 'the card service refused the API key' });
      expect(JSON.stringify(body)).not.toMatch(/reachable/);
      expect(t.logs.some((l) => l.includes('"alarm":"upstream_key_rejected"'))).toBe(true);
    } finally {
      await t.close();
    }
  });

  it('down is reported as not reachable', async () => {
    const t = await startTestApp({ sim: { transactions: 50 } });
    try {
      await t.sim.close();
      const body = notReadyBody(await t.request.get('/readyz'));
      expect(body.checks).toEqual({ upstream: 'the card service is not reachable' });
    } finally {
      await t.close();
    }
  });
});
