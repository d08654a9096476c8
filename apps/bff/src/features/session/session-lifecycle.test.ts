import { sessionResponseSchema } from '@card-console/shared/api/session';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/harness';
import { sessionCookieFrom } from '../../test/test-session';

const minute = 60_000;

function setCookieLine(res: { headers: Record<string, unknown> }, name: string): string {
  const raw = res.headers['set-cookie'];
  const lines = Array.isArray(raw) ? (raw as string[]) : [];
  const line = lines.find((l) => l.startsWith(`${name}=`) && !l.startsWith(`${name}=;`));
  if (!line) throw new Error(`no ${name} cookie set`);
  return line;
}

describe('session cookie in demo mode', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('holds only an opaque 256-bit id, HttpOnly, SameSite=Strict, Path=/, not Secure', async () => {
    const { email, password } = t.credentials.finance;
    const res = await t.request.post('/api/session').set(t.apiHeaders()).send({ email, password });
    const line = setCookieLine(res, 'cc_session');
    expect(line).toMatch(/^cc_session=[A-Za-z0-9_-]{43};/);
    expect(line).toMatch(/; HttpOnly/);
    expect(line).toMatch(/; SameSite=Strict/);
    expect(line).toMatch(/; Path=\//);
    expect(line).not.toMatch(/Secure/);
    expect(line).not.toMatch(/Max-Age|Expires/);
    expect(line).not.toContain(email);
  });

  it('rotates the id at sign-in: the cookie a visitor arrived with is not kept', async () => {
    const first = await t.signIn('finance');
    const { email, password } = t.credentials.finance;
    const res = await t.request.post('/api/session').set(first.headers()).send({ email, password });
    const second = sessionCookieFrom(res, 'cc_session');
    expect(second).toBeDefined();
    expect(second).not.toBe(first.cookie);
    const old = await t.request.get('/api/session').set(first.headers());
    expect(old.status).toBe(401);
  });

  it('ends after 15 idle minutes; a background poll does not count as activity', async () => {
    const s = await t.signIn('finance');
    t.clock.advance(10 * minute);
    const poll = await t.request.get('/api/session').set(s.headers({ 'X-Background': '1' }));
    expect(poll.status).toBe(200);
    t.clock.advance(5 * minute);
    const after = await t.request.get('/api/session').set(s.headers({ 'X-Background': '1' }));
    expect(after.status).toBe(401);
    expect(after.body.code).toBe('unauthenticated');
  });

  it('ends after 15 idle minutes however often the bell and the inbox poll in the background', async () => {
    const s = await t.signIn('finance');
    const background = s.headers({ 'X-Background': '1' });
    // What an open, unused tab asks every 30 s: the bell's unread count, the receipt inbox.
    for (let elapsed = 0; elapsed < 14 * minute + 30_000; elapsed += 30_000) {
      t.clock.advance(30_000);
      const bell = await t.request.get('/api/alerts/inbox/unread-count').set(background);
      expect(bell.status).toBe(200);
      expect((await t.request.get('/api/receipt-inbox').set(background)).status).toBe(200);
    }
    t.clock.advance(30_000);
    const after = await t.request.get('/api/alerts/inbox/unread-count').set(background);
    expect(after.status).toBe(401);
    expect(after.body.code).toBe('unauthenticated');
  });

  it('stays alive while used: a normal call resets the idle timer', async () => {
    const s = await t.signIn('finance');
    t.clock.advance(10 * minute);
    const used = await t.request.get('/api/cards').set(s.headers());
    expect(used.status).toBe(200);
    t.clock.advance(10 * minute);
    const who = await t.request.get('/api/session').set(s.headers());
    expect(who.status).toBe(200);
    const body = sessionResponseSchema.parse(who.body);
    expect(body.idleExpiresAt).toBe(t.clock.now() + 15 * minute);
  });

  it('ends after 12 hours whatever happens', async () => {
    const s = await t.signIn('finance');
    for (let i = 0; i < 48; i++) {
      t.clock.advance(14 * minute + 59_000); // 48 × 14:59 = 11 h 59 min 12 s, never idle
      expect((await t.request.get('/api/session').set(s.headers())).status).toBe(200);
    }
    const body = sessionResponseSchema.parse(
      (await t.request.get('/api/session').set(s.headers())).body,
    );
    t.clock.set(body.absoluteExpiresAt - 1);
    expect((await t.request.get('/api/session').set(s.headers())).status).toBe(200);
    t.clock.advance(1);
    const res = await t.request.get('/api/session').set(s.headers());
    expect(res.status).toBe(401);
  });

  it('sign-out destroys the session server-side: a replayed cookie is refused', async () => {
    const s = await t.signIn('admin');
    const out = await t.request.delete('/api/session').set(s.headers());
    expect(out.status).toBe(204);
    expect(String(out.headers['set-cookie'])).toMatch(/cc_session=;.*Expires=Thu, 01 Jan 1970/);
    for (const path of ['/api/session', '/api/cards', '/api/audit']) {
      const replay = await t.request.get(path).set(s.headers());
      expect(replay.status).toBe(401);
    }
  });

  it('tells who is signed in, with both expiry times and the step-up window for admins', async () => {
    const admin = await t.signIn('admin');
    const body = sessionResponseSchema.parse(
      (await t.request.get('/api/session').set(admin.headers())).body,
    );
    expect(body).toMatchObject({ email: 'admin@demo.test', role: 'admin' });
    expect(body.stepUpUntil).toBe(t.clock.now() + 5 * minute);
    expect(body.absoluteExpiresAt - body.idleExpiresAt).toBe(12 * 60 * minute - 15 * minute);
  });
});

describe('session cookie in production mode', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ mode: 'production' });
  });
  afterAll(() => t.close());

  it('is named __Host-cc_session and is Secure, HttpOnly, SameSite=Strict, Path=/, no Domain', async () => {
    const { email, password } = t.credentials.finance;
    const res = await t.request.post('/api/session').set(t.apiHeaders()).send({ email, password });
    expect(res.status).toBe(200);
    const line = setCookieLine(res, '__Host-cc_session');
    expect(line).toMatch(/; Secure/);
    expect(line).toMatch(/; HttpOnly/);
    expect(line).toMatch(/; SameSite=Strict/);
    expect(line).toMatch(/; Path=\//);
    expect(line).not.toMatch(/Domain=/);
  });

  it('never accepts the demo accounts', async () => {
    for (const email of ['finance@demo.test', 'admin@demo.test']) {
      const res = await t.request
        .post('/api/session')
        .set(t.apiHeaders())
        .send({ email, password: 'demo-password' });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('invalid_credentials');
    }
  });

  it('shows no demo accounts on the sign-in page', async () => {
    const res = await t.request.get('/api/meta').set(t.apiHeaders());
    expect(res.body).toEqual({ mode: 'production', passwordSignIn: true });
  });

  it('sends HSTS', async () => {
    const res = await t.request.get('/healthz');
    expect(res.headers['strict-transport-security']).toMatch(/max-age=31536000/);
  });
});
