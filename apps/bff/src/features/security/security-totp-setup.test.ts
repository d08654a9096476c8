// Setting up an authenticator app from Security (issue 48, decision 0120): any signed-in person
// gets a new secret, confirms it with a code from the app, and from then on gives a code at
// sign-in. The same proof as adding a passkey guards it; a wrong code stores nothing.
import { generateSync } from 'otplib';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryOneTimeStore } from '../../platform/security/one-time-store';
import { startTestApp, type TestApp, type TestSession } from '../../test/harness';
import { ManualClock } from '../../test/manual-clock';
import { TestSession as Session } from '../../test/test-session';

let t: TestApp;
afterEach(() => t.close());

const finance = () => t.credentials.finance;

/** The code an authenticator app holding `secret` shows now (by the app's clock). */
const codeOf = (secret: string) =>
  generateSync({ secret, epoch: Math.floor(t.clock.now() / 1000) });

async function auditOf(action: string) {
  const { items } = await t.audit.list({ limit: 200 });
  return items.filter((r) => r.action === action);
}

const setup = (session: TestSession) =>
  t.request.post('/api/second-factors/totp/setup').set(session.headers()).send({});
const confirm = (session: TestSession, code: string) =>
  t.request.post('/api/second-factors/totp').set(session.headers()).send({ code });

const signIn = (totp?: string) =>
  t.request
    .post('/api/session')
    .set(t.apiHeaders())
    .send({ email: finance().email, password: finance().password, ...(totp ? { totp } : {}) });

describe('setting up an authenticator app', () => {
  it('lets finance set one up after signing in; the next sign-in asks for a code and takes one', async () => {
    t = await startTestApp({ sim: { transactions: 5 } });
    const session = await t.signIn('finance');
    const started = await setup(session);
    expect(started.status).toBe(200);
    const { secret, uri } = started.body;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    const parsed = new URL(uri);
    expect(parsed.protocol).toBe('otpauth:');
    expect(parsed.searchParams.get('issuer')).toBe('Card Console');
    expect(parsed.searchParams.get('secret')).toBe(secret);
    expect(decodeURIComponent(parsed.pathname)).toContain(finance().email);

    const confirmed = await confirm(session, codeOf(secret));
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toEqual({ passkeys: [], totp: { available: true, enabled: true } });
    expect(await auditOf('factor.enrolled')).toEqual([
      expect.objectContaining({
        actor: finance().email,
        role: 'finance',
        method: 'totp',
        outcome: 'success',
      }),
    ]);
    // Kept sealed, never in clear, and never logged.
    const stored = (await t.factors.get(finance().email)).totpSecret;
    expect(stored).toMatch(/^v1:/);
    expect(stored).not.toContain(secret);
    expect(t.logs.join('\n')).not.toContain(secret);

    const asked = await signIn();
    expect(asked.status).toBe(401);
    expect(asked.body).toMatchObject({
      code: 'second_factor_required',
      secondFactor: { methods: ['totp'] },
    });
    // The code that confirmed the app is used up: the next one signs in.
    expect((await signIn(codeOf(secret))).status).toBe(401);
    t.clock.advance(30_000);
    const signedIn = await signIn(codeOf(secret));
    expect(signedIn.status).toBe(200);
    expect(await auditOf('session.signIn')).toContainEqual(
      expect.objectContaining({ actor: finance().email, method: 'password+totp' }),
    );
  });

  it('refuses a wrong code with a clear problem and stores nothing; the right one still works', async () => {
    t = await startTestApp({ sim: { transactions: 5 } });
    const session = await t.signIn('finance');
    const { secret } = (await setup(session)).body;
    const right = codeOf(secret);
    const wrong = right === '000000' ? '111111' : '000000';
    const refused = await confirm(session, wrong);
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ code: 'invalid_totp' });
    expect(refused.body.detail).toMatch(/does not match/);
    expect((await t.factors.get(finance().email)).totpSecret).toBeUndefined();
    expect(await auditOf('factor.enrolled')).toEqual([]);
    const malformed = await confirm(session, '12ab');
    expect(malformed.status).toBe(400);

    expect((await confirm(session, right)).status).toBe(200);
  });

  it('drops the setup after 5 wrong codes', async () => {
    t = await startTestApp({ sim: { transactions: 5 } });
    const session = await t.signIn('finance');
    const { secret } = (await setup(session)).body;
    const wrong = codeOf(secret) === '000000' ? '111111' : '000000';
    for (let i = 0; i < 4; i++) expect((await confirm(session, wrong)).status).toBe(422);
    const last = await confirm(session, wrong);
    expect(last.body.detail).toMatch(/Start again/);
    const gone = await confirm(session, codeOf(secret));
    expect(gone.status).toBe(409);
    expect(gone.body).toMatchObject({ code: 'no_totp_setup' });
  });

  it('refuses a code with no setup, or after the setup expired, clearly', async () => {
    const pendingClock = new ManualClock();
    t = await startTestApp({
      sim: { transactions: 5 },
      oneTimeStores: { challengeStore: new MemoryOneTimeStore(pendingClock) },
    });
    const session = await t.signIn('finance');
    const none = await confirm(session, '123456');
    expect(none.status).toBe(409);
    expect(none.body).toMatchObject({ code: 'no_totp_setup' });
    expect(none.body.detail).toMatch(/Start again/);

    const { secret } = (await setup(session)).body;
    pendingClock.advance(10 * 60_000 + 1);
    const expired = await confirm(session, codeOf(secret));
    expect(expired.status).toBe(409);
    expect(expired.body).toMatchObject({ code: 'no_totp_setup' });
    expect((await t.factors.get(finance().email)).totpSecret).toBeUndefined();
  });

  it('a newer setup replaces an older one, whose key then confirms nothing', async () => {
    t = await startTestApp({ sim: { transactions: 5 } });
    const first = await t.signIn('finance');
    const older = (await setup(first)).body.secret;
    const second = await t.signIn('finance');
    const newer = (await setup(second)).body.secret;
    expect((await confirm(first, codeOf(older))).status).toBe(422);
    expect((await confirm(first, codeOf(newer))).status).toBe(200);
  });

  it('a person with a factor steps up first, and a new app replaces the old one', async () => {
    t = await startTestApp({ sim: { transactions: 5 } });
    const first = await t.signIn('finance');
    const old = (await setup(first)).body.secret;
    expect((await confirm(first, codeOf(old))).status).toBe(200);
    t.clock.advance(30_000);
    const res = await signIn(codeOf(old));
    const session = Session.fromResponse(res, 'finance', t.config.cookie.name, t.apiHeaders);

    t.clock.advance(t.config.session.stepUpMs + 1);
    const late = await setup(session);
    expect(late.status).toBe(401);
    expect(late.body).toMatchObject({
      code: 'step_up_required',
      secondFactor: { methods: ['totp'] },
    });
    const steppedUp = await t.request
      .post('/api/session/step-up')
      .set(session.headers())
      .send({ totp: codeOf(old) });
    expect(steppedUp.status).toBe(200);
    const now = Session.fromResponse(steppedUp, 'finance', t.config.cookie.name, t.apiHeaders);
    const fresh = (await setup(now)).body.secret;
    expect(fresh).not.toBe(old);
    // The step-up lapses while the person types the key: asked again, the setup is still there.
    t.clock.advance(t.config.session.stepUpMs + 1);
    const lapsed = await confirm(now, codeOf(fresh));
    expect(lapsed.status).toBe(401);
    expect(lapsed.body).toMatchObject({ code: 'step_up_required' });
    const again = await t.request
      .post('/api/session/step-up')
      .set(now.headers())
      .send({ totp: codeOf(old) });
    const rotated = Session.fromResponse(again, 'finance', t.config.cookie.name, t.apiHeaders);
    t.clock.advance(30_000);
    expect((await confirm(rotated, codeOf(fresh))).status).toBe(200);
    expect(await auditOf('factor.enrolled')).toHaveLength(2);

    t.clock.advance(30_000);
    expect((await signIn(codeOf(old))).status).toBe(401);
    expect((await signIn(codeOf(fresh))).status).toBe(200);
  });
});
