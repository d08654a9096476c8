import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './harness';

describe('the test harness', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('signs in both demo roles and answers who-am-I for each', async () => {
    for (const role of ['finance', 'admin'] as const) {
      const session = await t.signIn(role);
      const res = await t.request.get('/api/session').set(session.headers());
      expect(res.status).toBe(200);
      expect(res.body.role).toBe(role);
    }
  });

  it('hands out a fresh admin code for each sign-in, moving the clock when it must', async () => {
    const first = await t.signIn('admin');
    const second = await t.signIn('admin');
    expect(first.cookie).not.toBe(second.cookie);
  });

  it('captures log lines and responses', async () => {
    await t.request.get('/healthz');
    expect(t.logs.some((line) => line.includes('/healthz'))).toBe(true);
    expect(t.responses.some((r) => r.url === '/healthz' && r.status === 200)).toBe(true);
  });
});
