import { readFile } from 'node:fs/promises';
import { apiErrorBodySchema } from '@card-console/shared/api/error';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/harness';
import { totpCodeAt } from '../../test/totp-source';

let t: TestApp;
beforeEach(async () => {
  t = await startTestApp();
});
afterEach(() => t.close());

const signIn = (body: Record<string, unknown>) =>
  t.request.post('/api/session').set(t.apiHeaders()).send(body);
const admin = () => t.credentials.admin;
const secret = () => admin().totpSecret ?? '';

describe('signing in', () => {
  it('answers a wrong password and an unknown email with the same generic 401', async () => {
    const wrong = await signIn({ email: 'finance@demo.test', password: 'nope' });
    const unknown = await signIn({ email: 'nobody@demo.test', password: 'demo-password' });
    for (const res of [wrong, unknown]) {
      expect(res.status).toBe(401);
      expect(apiErrorBodySchema.parse(res.body).code).toBe('invalid_credentials');
    }
    expect(wrong.body.detail).toBe(unknown.body.detail);
    expect(wrong.headers['set-cookie']).toBeUndefined();
  });

  it('asks an admin for a code when none is given, so the UI can prompt for it', async () => {
    const res = await signIn({ email: admin().email, password: admin().password });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('second_factor_required');
    expect(res.body.secondFactor).toEqual({ methods: ['totp'] });
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it('refuses an admin with a wrong code as invalid credentials', async () => {
    const good = totpCodeAt(secret(), t.clock.now());
    const bad = good === '000000' ? '111111' : '000000';
    const res = await signIn({ email: admin().email, password: admin().password, totp: bad });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('invalid_credentials');
  });

  it('accepts the previous 30-second step (clock drift) but not one two steps old', async () => {
    const previous = totpCodeAt(secret(), t.clock.now() - 30_000);
    const ok = await signIn({ email: admin().email, password: admin().password, totp: previous });
    expect(ok.status).toBe(200);
    t.clock.advance(120_000);
    const stale = totpCodeAt(secret(), t.clock.now() - 60_000);
    const res = await signIn({ email: admin().email, password: admin().password, totp: stale });
    expect(res.status).toBe(401);
  });

  it('refuses the same code twice, even for a new sign-in', async () => {
    const code = totpCodeAt(secret(), t.clock.now());
    const body = { email: admin().email, password: admin().password, totp: code };
    expect((await signIn(body)).status).toBe(200);
    const replay = await signIn(body);
    expect(replay.status).toBe(401);
    expect(replay.body.code).toBe('invalid_credentials');
  });

  it('counts an admin sign-in as a step-up', async () => {
    const session = await t.signIn('admin');
    const who = await t.request.get('/api/session').set(session.headers());
    expect(who.body.stepUpUntil).toBe(t.clock.now() + 5 * 60_000);
    const finance = await t.signIn('finance');
    const fin = await t.request.get('/api/session').set(finance.headers());
    expect(fin.body.stepUpUntil).toBeUndefined();
  });

  it('audits successes and failures without the password or the code', async () => {
    await signIn({ email: 'finance@demo.test', password: 'wrong-password-123' });
    await t.signIn('finance');
    const code = t.adminTotp();
    await signIn({ email: admin().email, password: admin().password, totp: code });
    const { items } = await t.audit.list({ limit: 50 });
    const signIns = items.filter((r) => r.action === 'session.signIn');
    expect(signIns.map((r) => r.outcome)).toEqual(['success', 'success', 'failed']);
    expect(signIns[2]).toMatchObject({ actor: 'finance@demo.test', role: 'finance' });
    const file = await readFile(t.audit.path, 'utf8');
    expect(file).not.toContain('wrong-password-123');
    expect(file).not.toContain('demo-password');
    expect(file).not.toContain(code);
  });

  it('does not record an unknown email typed at sign-in (it may be a password)', async () => {
    await signIn({ email: 'hunter2secret@demo.test', password: 'x' });
    const file = await readFile(t.audit.path, 'utf8');
    expect(file).not.toContain('hunter2secret');
  });
});

describe('sign-in rate limits', () => {
  it('locks an account at an address after 5 failures for 15 minutes, even for the right password', async () => {
    for (let i = 0; i < 5; i++) {
      expect((await signIn({ email: 'finance@demo.test', password: `wrong-${i}` })).status).toBe(
        401,
      );
    }
    const locked = await signIn({ email: 'finance@demo.test', password: 'demo-password' });
    expect(locked.status).toBe(429);
    const body = apiErrorBodySchema.parse(locked.body);
    expect(body.code).toBe('rate_limited');
    expect(body.retryAfterSeconds).toBeGreaterThan(14 * 60);
    expect(locked.headers['retry-after']).toBe(String(body.retryAfterSeconds));
    // Another account from the same address is still fine.
    expect((await t.signIn('admin')).cookie).toBeTruthy();
  });

  it('locks an address after 20 failures across accounts', async () => {
    for (let i = 0; i < 20; i++) {
      const res = await signIn({ email: `someone${i}@example.test`, password: 'guess' });
      expect(res.status).toBe(401);
    }
    const res = await signIn({ email: 'finance@demo.test', password: 'demo-password' });
    expect(res.status).toBe(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('forgets an account’s failures at an address after a successful sign-in there', async () => {
    for (let i = 0; i < 4; i++)
      await signIn({ email: 'finance@demo.test', password: `wrong-${i}` });
    await t.signIn('finance');
    for (let i = 0; i < 4; i++) {
      expect((await signIn({ email: 'finance@demo.test', password: `again-${i}` })).status).toBe(
        401,
      );
    }
    expect((await t.signIn('finance')).cookie).toBeTruthy();
  });
});
