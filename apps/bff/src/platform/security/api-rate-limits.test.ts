import { apiErrorBodySchema } from '@card-console/shared/api/error';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../env';
import { startTestApp, type TestApp } from '../../test/harness';

let t: TestApp | undefined;
afterEach(() => t?.close());

describe('per-user API rate limits', () => {
  it('answers 429 with Retry-After once a person passes the per-minute limit, others unaffected', async () => {
    t = await startTestApp({
      sim: { transactions: 50 },
      env: { rateLimits: { apiRequestsPerMinute: 10 } },
    });
    const finance = await t.signIn('finance');
    const admin = await t.signIn('admin');
    for (let i = 0; i < 10; i++)
      expect((await t.request.get('/api/cards').set(finance.headers())).status).toBe(200);
    const before = t.sim.stats.total();
    const limited = await t.request.get('/api/cards').set(finance.headers());
    expect(limited.status).toBe(429);
    const body = apiErrorBodySchema.parse(limited.body);
    expect(body.retryAfterSeconds).toBeGreaterThan(0);
    expect(limited.headers['retry-after']).toBe(String(body.retryAfterSeconds));
    expect(t.sim.stats.total()).toBe(before);
    expect((await t.request.get('/api/cards').set(admin.headers())).status).toBe(200);
  });

  it('counts denied calls too, so a stream of audited denials is cut off', async () => {
    t = await startTestApp({
      sim: { transactions: 50 },
      env: { rateLimits: { apiRequestsPerMinute: 3 } },
    });
    const finance = await t.signIn('finance');
    for (let i = 0; i < 3; i++)
      expect((await t.request.get('/api/audit').set(finance.headers())).status).toBe(403);
    expect((await t.request.get('/api/audit').set(finance.headers())).status).toBe(429);
    const { items } = await t.audit.list({ limit: 10 });
    expect(items.filter((r) => r.action === 'access.denied')).toHaveLength(3);
  });

  it('allows only 5 reveals a minute by default', async () => {
    const { revealsPerMinute } = loadConfig({ DEMO_MODE: '1' }).rateLimits;
    expect(revealsPerMinute).toBe(5);
    t = await startTestApp({
      sim: { transactions: 50 },
      env: { rateLimits: { revealsPerMinute } },
    });
    const admin = await t.signIn('admin');
    const cardId = t.sim.data.cards()[0]?.id ?? '';
    const reveal = () =>
      t?.request
        .post(`/api/cards/${cardId}/reveal`)
        .set(admin.headers())
        .send({ reason: 'rate limit test' });
    for (let i = 0; i < 5; i++) expect((await reveal())?.status).toBe(200);
    const res = await reveal();
    expect(res?.status).toBe(429);
    expect(Number(res?.headers['retry-after'])).toBeGreaterThan(0);
    expect((await t.request.get(`/api/cards/${cardId}`).set(admin.headers())).status).toBe(200);
  });
});
