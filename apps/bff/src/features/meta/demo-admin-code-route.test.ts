// GET /api/meta/demo-admin-code: in demo mode the sign-in page shows the demo admin's code, so
// trying the demo needs no authenticator app; the secret itself never leaves the BFF this way,
// and outside demo mode the path is answered as one no endpoint has.
import { demoAdminCodeResponseSchema } from '@card-console/shared/api/meta';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/harness';
import { totpCodeAt } from '../../test/totp-source';

/** The demo admin's public secret (README), to check the codes against and look for. */
const DEMO_SECRET = 'JBSWY3DPEHPK3PXP';

describe('GET /api/meta/demo-admin-code in demo mode', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ sim: { transactions: 10 } });
  });
  afterAll(() => t.close());

  const read = () => t.request.get('/api/meta/demo-admin-code').set(t.apiHeaders());

  it('answers before sign-in with the code an authenticator shows now and its seconds left, nothing else', async () => {
    // 12 s into a 30 s step.
    t.clock.set(Math.floor(t.clock.now() / 30_000) * 30_000 + 12_000);
    const res = await read();
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toContain('no-store');
    expect(res.body).toEqual({ code: totpCodeAt(DEMO_SECRET, t.clock.now()), secondsLeft: 18 });
    expect(demoAdminCodeResponseSchema.parse(res.body)).toEqual(res.body);
  });

  it('counts down, and gives the next code once the step has turned', async () => {
    const step = Math.floor(t.clock.now() / 30_000) * 30_000;
    t.clock.set(step + 29_400);
    const last = (await read()).body;
    expect(last).toEqual({ code: totpCodeAt(DEMO_SECRET, step), secondsLeft: 1 });
    t.clock.set(step + 30_000);
    const next = (await read()).body;
    expect(next).toEqual({ code: totpCodeAt(DEMO_SECRET, step + 30_000), secondsLeft: 30 });
  });

  it('lets a person sign in as the demo admin with the code it shows', async () => {
    t.clock.advance(60_000);
    const { code } = demoAdminCodeResponseSchema.parse((await read()).body);
    const res = await t.request
      .post('/api/session')
      .set(t.apiHeaders())
      .send({ email: 'admin@demo.test', password: 'demo-password', totp: code });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ email: 'admin@demo.test', role: 'admin' });
  });

  it('never sends the secret, and leaves no audit record', async () => {
    const before = (await t.audit.list({ limit: 1_000 })).items.length;
    for (let i = 0; i < 3; i++) expect((await read()).status).toBe(200);
    expect((await t.audit.list({ limit: 1_000 })).items.length).toBe(before);
    const codeAnswers = t.responses.filter((r) => r.url.includes('/meta/demo-admin-code'));
    expect(codeAnswers.length).toBeGreaterThanOrEqual(3);
    for (const answer of codeAnswers) {
      const everything = `${JSON.stringify(answer.headers)}\n${answer.body}`;
      expect(everything).not.toContain(DEMO_SECRET);
      expect(everything).not.toMatch(/otpauth:/);
    }
  });

  it('is refused without X-CSRF, like every API call', async () => {
    const res = await t.request.get('/api/meta/demo-admin-code');
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('csrf_required');
  });
});

describe('GET /api/meta/demo-admin-code outside demo mode', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ mode: 'production', sim: { transactions: 10 } });
  });
  afterAll(() => t.close());

  it('is not there: the same 404 as a path no endpoint has, with no code and no secret', async () => {
    const res = await t.request.get('/api/meta/demo-admin-code').set(t.apiHeaders());
    const unknown = await t.request.get('/api/meta/no-such-thing').set(t.apiHeaders());
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ status: 404, code: 'not_found' });
    expect(res.body.detail).toBe(unknown.body.detail);
    expect(res.text).not.toContain(DEMO_SECRET);
    expect(res.text).not.toContain(totpCodeAt(DEMO_SECRET, t.clock.now()));
  });

  it('not even to a signed-in admin', async () => {
    const admin = await t.signIn('admin');
    const res = await t.request.get('/api/meta/demo-admin-code').set(admin.headers());
    expect(res.status).toBe(404);
    expect(res.text).not.toContain(totpCodeAt(DEMO_SECRET, t.clock.now()));
  });
});
