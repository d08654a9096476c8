import { apiErrorBodySchema } from '@card-console/shared/api/error';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../test/harness';
import type { TestSession } from '../test/test-session';
import { READY_CHECK_TTL_MS } from './health-router';

let t: TestApp;
let admin: TestSession;
let finance: TestSession;
beforeAll(async () => {
  t = await startTestApp({ sim: { transactions: 200 } });
  admin = await t.signIn('admin');
  finance = await t.signIn('finance');
});
afterAll(() => t.close());

const card = () => t.sim.data.cards()[0]?.id ?? '';

function expectErrorBody(
  res: { status: number; body: unknown; headers: Record<string, unknown> },
  code?: string,
) {
  const body = apiErrorBodySchema.parse(res.body);
  expect(body.status).toBe(res.status);
  expect(body.requestId).toBe(res.headers['x-request-id']);
  if (code) expect(body.code).toBe(code);
  return body;
}

describe('Origin on mutations', () => {
  it.each([
    ['missing', undefined],
    ['foreign', 'https://evil.example'],
    ['same host, other scheme', 'https://localhost:3000'],
    ['same host, other port', 'http://localhost:3001'],
    ['null', 'null'],
  ])('refuses a POST with a %s Origin (403 bad_origin) before any work', async (_name, origin) => {
    const before = t.sim.stats.total();
    const headers: Record<string, string> = { 'X-CSRF': '1', Cookie: admin.cookie };
    if (origin) headers.Origin = origin;
    const res = await t.request.patch(`/api/cards/${card()}`).set(headers).send({ name: 'x' });
    expect(res.status).toBe(403);
    expectErrorBody(res, 'bad_origin');
    expect(t.sim.stats.total()).toBe(before);
  });

  it('lets a GET through without an Origin', async () => {
    const res = await t.request.get('/api/cards').set({ 'X-CSRF': '1', Cookie: finance.cookie });
    expect(res.status).toBe(200);
  });
});

describe('body rules', () => {
  const patch = () => t.request.patch(`/api/cards/${card()}`).set(admin.headers());

  it('refuses an unknown body field', async () => {
    const res = await patch().send({ name: 'ok', surprise: true });
    expect(res.status).toBe(400);
    expectErrorBody(res);
  });

  it('refuses a body over 16 KiB', async () => {
    const res = await patch().send({ name: 'x'.repeat(17 * 1024) });
    expect(res.status).toBe(413);
    expectErrorBody(res, 'body_too_large');
  });

  it('refuses a body that is not JSON', async () => {
    const res = await patch().set('Content-Type', 'text/plain').send('name=x');
    expect(res.status).toBe(400);
    expectErrorBody(res, 'invalid_body');
    const form = await patch().type('form').send({ name: 'x' });
    expect(form.status).toBe(400);
  });

  it('refuses malformed JSON', async () => {
    const res = await patch().set('Content-Type', 'application/json').send('{"name": ');
    expect(res.status).toBe(400);
    expectErrorBody(res, 'invalid_json');
  });

  it.each([['[1,2]'], ['"text"'], ['42'], ['null']])('refuses a top-level %s', async (json) => {
    const res = await patch().set('Content-Type', 'application/json').send(json);
    expect(res.status).toBe(400);
    expectErrorBody(res);
  });
});

describe('query rules', () => {
  it.each([
    ['repeated', '/api/cards?status=ACTIVE&status=ACTIVE'],
    ['array', '/api/cards?status[]=ACTIVE'],
    ['nested', '/api/cards?status[x]=ACTIVE'],
    ['unknown', '/api/cards?colour=blue'],
  ])('refuses a %s query parameter with a 400 and the error body', async (_name, path) => {
    const before = t.sim.stats.total();
    const res = await t.request.get(path).set(finance.headers());
    expect(res.status).toBe(400);
    expectErrorBody(res);
    expect(t.sim.stats.total()).toBe(before);
  });
});

describe('unknown paths', () => {
  it.each([
    ['GET', '/api/nope'],
    ['GET', '/api/cards/abc/transactions'],
    ['PUT', '/api/cards/abc'],
    ['DELETE', '/api/cards/abc'],
    ['GET', '/api'],
    ['GET', '/api/'],
    ['GET', '/api/Cards'],
    ['OPTIONS', '/api/cards'],
    ['GET', '/api/../api/audit'],
  ])('%s %s is a 404 with the error body and never reaches the upstream', async (method, path) => {
    const before = t.sim.stats.snapshot();
    const res = await t.request[method.toLowerCase() as 'get'](path).set(admin.headers());
    expect(res.status).toBe(404);
    if (method !== 'OPTIONS') expectErrorBody(res, 'not_found');
    expect(t.sim.stats.snapshot()).toEqual(before);
  });
});

describe('malformed paths', () => {
  it.each([
    ['/%E0%A4%A', undefined],
    ['/assets/%zz', undefined],
    ['/api/cards/%E0%A4%A', 'finance'],
    ['/api/transactions/%', 'finance'],
    ['/api/cards/%', undefined],
  ] as const)('%s is a 4xx with the error body, not a 500', async (path, who) => {
    const headers = who ? finance.headers() : t.apiHeaders();
    const res = await t.request.get(path).set(headers);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expectErrorBody(res);
  });
});

describe('headers', () => {
  it('sends a strict CSP and the other security headers on pages and the API', async () => {
    for (const res of [
      await t.request.get('/'),
      await t.request.get('/api/meta').set(t.apiHeaders()),
    ]) {
      const csp = String(res.headers['content-security-policy']);
      for (const directive of [
        "default-src 'self'",
        "script-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "frame-ancestors 'none'",
        "form-action 'self'",
      ]) {
        expect(csp).toContain(directive);
      }
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).not.toContain('unsafe-eval');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
      expect(res.headers['x-powered-by']).toBeUndefined();
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    }
  });

  it('marks every /api response no-store, errors included, and sends no ETag', async () => {
    const responses = [
      await t.request.get('/api/meta').set(t.apiHeaders()),
      await t.request.get('/api/cards').set(finance.headers()),
      await t.request.get('/api/cards').set({ Cookie: finance.cookie }),
      await t.request.get('/api/nope').set(finance.headers()),
      await t.request.get('/api/audit').set(finance.headers()),
    ];
    for (const res of responses) {
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers.etag).toBeUndefined();
    }
  });

  it('gives every response a request id, keeping a sane incoming one and replacing junk', async () => {
    const kept = await t.request.get('/healthz').set('X-Request-Id', 'trace-1234-abcd');
    expect(kept.headers['x-request-id']).toBe('trace-1234-abcd');
    const junk = await t.request.get('/healthz').set('X-Request-Id', 'bad id\twith "quotes"');
    expect(junk.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('the SPA and health endpoints', () => {
  it('serves a plain page saying the SPA is not built when the dist folder is missing', async () => {
    for (const path of ['/', '/cards/abc?x=1']) {
      const res = await t.request.get(path).set('Accept', 'text/html');
      expect(res.status).toBe(200);
      expect(res.text).toContain('not built');
    }
  });

  it('answers liveness and readiness (which asks the upstream)', async () => {
    t.clock.advance(READY_CHECK_TTL_MS);
    const before = t.sim.stats.count('GET /sub-account');
    expect((await t.request.get('/healthz')).body).toEqual({ status: 'ok' });
    expect((await t.request.get('/readyz')).body).toEqual({
      status: 'ready',
      checks: { upstream: 'ok' },
    });
    expect(t.sim.stats.count('GET /sub-account')).toBe(before + 1);
  });

  it('reports not ready with a 503 error body when the upstream refuses', async () => {
    t.clock.advance(READY_CHECK_TTL_MS);
    t.sim.faults.enqueue({ kind: 'status', status: 403 });
    const res = await t.request.get('/readyz');
    t.sim.faults.clear();
    expect(res.status).toBe(503);
    expectErrorBody(res, 'not_ready');
    expect(res.headers['retry-after']).toBeDefined();
  });

  it('asks the upstream once for probes at the same time and within two seconds, then again', async () => {
    t.clock.advance(READY_CHECK_TTL_MS);
    const calls = () => t.sim.stats.count('GET /sub-account');
    const before = calls();
    const together = await Promise.all(Array.from({ length: 5 }, () => t.request.get('/readyz')));
    expect(together.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    t.clock.advance(READY_CHECK_TTL_MS - 1);
    expect((await t.request.get('/readyz')).status).toBe(200);
    expect(calls()).toBe(before + 1);

    // A failed check is reused the same way, and the next one after it sees the recovery.
    t.clock.advance(1);
    t.sim.faults.enqueue({ kind: 'status', status: 403 });
    expect((await t.request.get('/readyz')).status).toBe(503);
    t.sim.faults.clear();
    expect((await t.request.get('/readyz')).status).toBe(503);
    expect(calls()).toBe(before + 2);
    t.clock.advance(READY_CHECK_TTL_MS);
    expect((await t.request.get('/readyz')).status).toBe(200);
    expect(calls()).toBe(before + 3);
  });
});
