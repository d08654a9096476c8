import { describe, expect, it } from 'vitest';
import { createCardService } from '../index';
import { API_KEY, expectError, jsonInit, useService } from '../test-support/harness';

describe('faults', () => {
  const h = useService({ transactions: 100 });
  const subPath = '/sub-account';

  it('a scripted status answers once with the error body, then service resumes', async () => {
    h.service.faults.enqueue({ kind: 'status', status: 503 });
    expectError(await h.request(subPath), 503);
    expect((await h.request(subPath)).status).toBe(200);
  });

  it('a scripted 429 carries Retry-After in seconds, as an HTTP date, or not at all', async () => {
    const date = new Date(Date.now() + 5_000).toUTCString();
    h.service.faults.enqueue(
      { kind: 'status', status: 429, retryAfter: '1' },
      { kind: 'status', status: 429, retryAfter: date },
      { kind: 'status', status: 429 },
    );
    const a = await h.request(subPath);
    expectError(a, 429, 'rate_limited');
    expect(a.headers.get('retry-after')).toBe('1');
    expect((await h.request(subPath)).headers.get('retry-after')).toBe(date);
    const c = await h.request(subPath);
    expectError(c, 429);
    expect(c.headers.get('retry-after')).toBeNull();
  });

  it('malformed answers 200 with broken JSON', async () => {
    h.service.faults.enqueue({ kind: 'malformed' });
    const reply = await h.request(subPath);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/json/);
    expect(() => JSON.parse(reply.text)).toThrow();
  });

  it('drop destroys the connection without a response', async () => {
    h.service.faults.enqueue({ kind: 'drop' });
    await expect(h.request(subPath)).rejects.toThrow();
    expect((await h.request(subPath)).status).toBe(200);
  });

  it('delay holds the answer back, then serves it normally', async () => {
    h.service.faults.enqueue({ kind: 'delay', ms: 150 });
    const started = performance.now();
    const reply = await h.request(subPath);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    expect(reply.status).toBe(200);
  });

  it('html answers an HTML error page with the given status', async () => {
    h.service.faults.enqueue({ kind: 'html', status: 502 });
    const reply = await h.request(subPath);
    expect(reply.status).toBe(502);
    expect(reply.headers.get('content-type')).toMatch(/^text\/html/);
    expect(reply.text).toMatch(/<html/);
  });

  it('redirect answers the status and Location without following anything', async () => {
    h.service.faults.enqueue({
      kind: 'redirect',
      status: 302,
      location: 'http://example.invalid/x',
    });
    const reply = await h.request(subPath);
    expect(reply.status).toBe(302);
    expect(reply.headers.get('location')).toBe('http://example.invalid/x');
  });

  it('body sends arbitrary JSON with the given status', async () => {
    h.service.faults.enqueue({ kind: 'body', status: 200, body: { items: 'not an array' } });
    const reply = await h.request(subPath);
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({ items: 'not an array' });
  });

  it('echo-key answers a 400 or a 422 error body whose message quotes the service key', async () => {
    h.service.faults.enqueue(
      { kind: 'echo-key' },
      { kind: 'echo-key', status: 422, message: 'key={key}; refused' },
    );
    const a = await h.request(subPath);
    expectError(a, 400, 'invalid_request');
    expect(a.json).toMatchObject({ message: `the key ${API_KEY} is not allowed for this program` });
    const b = await h.request(subPath);
    expectError(b, 422, 'invalid_request');
    expect(b.json).toMatchObject({ message: `key=${API_KEY}; refused` });
    expect((await h.request(subPath)).status).toBe(200);
  });

  it('a step restricted to a method or route waits for a matching request', async () => {
    h.service.faults.enqueue({ kind: 'status', status: 500, method: 'PATCH' });
    h.service.faults.enqueue({ kind: 'status', status: 504, route: 'GET /card' });
    expect((await h.request(subPath)).status).toBe(200);
    expectError(await h.request('/card'), 504);
    const id = h.service.data.cards()[0]?.id;
    expectError(await h.request(`/card/${id}`, jsonInit('PATCH', { name: 'Never' })), 500);
    expect(h.service.data.card(id ?? '')?.name).not.toBe('Never');
    expect((await h.request(subPath)).status).toBe(200);
  });

  it('random faults follow their rates, can be changed at runtime, and clear() stops them', async () => {
    h.service.faults.set({ errorRate: 1 });
    expectError(await h.request(subPath), 500, 'internal_error');
    h.service.faults.set({ errorRate: 0, malformedJsonRate: 1 });
    const malformed = await h.request(subPath);
    expect(malformed.status).toBe(200);
    expect(malformed.json).toBeUndefined();
    h.service.faults.set({ malformedJsonRate: 0, dropConnectionRate: 1 });
    await expect(h.request(subPath)).rejects.toThrow();
    h.service.faults.set({ dropConnectionRate: 0, latencyMs: 100 });
    const started = performance.now();
    expect((await h.request(subPath)).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(90);
    h.service.faults.set({ latencyMs: 0, errorRate: 0.5 });
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) statuses.push((await h.request(subPath)).status);
    expect(statuses).toContain(500);
    expect(statuses).toContain(200);
    h.service.faults.clear();
    for (let i = 0; i < 10; i++) expect((await h.request(subPath)).status).toBe(200);
  });

  it('faults given as options apply from the first request', async () => {
    const service = createCardService({ transactions: 10, faults: { errorRate: 1 } });
    const { url } = await service.listen();
    try {
      const res = await fetch(`${url}/card`, { headers: { 'x-api-key': 'demo-key' } });
      expect(res.status).toBe(500);
    } finally {
      await service.close();
    }
  });
});
