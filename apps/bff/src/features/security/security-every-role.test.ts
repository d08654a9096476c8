// Security for every role (issue 48, decision 0120): a finance person opens Security without an
// audit row, adds their first passkey within 5 minutes of signing in, confirms it at every sign-in
// from then on; the admins' policy "require a second factor for everyone" holds a person without
// one to setting one up, is audited with the change, and needs a recent second factor.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestSession } from '../../test/harness';
import { SoftwareAuthenticator } from '../../test/software-authenticator';
import { TestSession as Session } from '../../test/test-session';

let t: TestApp;
beforeEach(async () => {
  t = await startTestApp({ sim: { transactions: 5 } });
});
afterEach(() => t.close());

const finance = () => t.credentials.finance;

async function auditOf(action: string) {
  const { items } = await t.audit.list({ limit: 200 });
  return items.filter((r) => r.action === action);
}

/** Enrols a passkey of `authenticator` for the person behind `session`; the answer. */
async function enrol(session: TestSession, authenticator: SoftwareAuthenticator, name = 'Laptop') {
  const options = await t.request
    .post('/api/passkeys/registration-options')
    .set(session.headers())
    .send({});
  if (options.status !== 200) return options;
  const response = authenticator.create(options.body, t.config.publicOrigin);
  return t.request.post('/api/passkeys').set(session.headers()).send({ name, response });
}

const passwordOnly = () =>
  t.request
    .post('/api/session')
    .set(t.apiHeaders())
    .send({ email: finance().email, password: finance().password });

/** Finance signs in with the password and a passkey of `authenticator`. */
async function signInWithPasskey(authenticator: SoftwareAuthenticator): Promise<TestSession> {
  const first = await passwordOnly();
  expect(first.status).toBe(401);
  const passkey = authenticator.get(first.body.secondFactor.passkeyOptions, t.config.publicOrigin);
  const res = await t.request
    .post('/api/session')
    .set(t.apiHeaders())
    .send({ email: finance().email, password: finance().password, passkey });
  expect(res.status).toBe(200);
  return Session.fromResponse(res, 'finance', t.config.cookie.name, t.apiHeaders);
}

async function setPolicy(session: TestSession, requireSecondFactor: unknown) {
  return t.request.put('/api/security-policy').set(session.headers()).send({ requireSecondFactor });
}

describe('a finance person on Security', () => {
  it('opens it (their factors, the policy) and no Denied row is written', async () => {
    const session = await t.signIn('finance');
    const factors = await t.request.get('/api/second-factors').set(session.headers());
    expect(factors.status).toBe(200);
    expect(factors.body).toEqual({ passkeys: [], totp: { available: false, enabled: false } });
    const policy = await t.request.get('/api/security-policy').set(session.headers());
    expect(policy.body).toEqual({ requireSecondFactor: false });
    expect(await auditOf('access.denied')).toEqual([]);
  });

  it('adds a first passkey within 5 minutes of signing in, renames it; both recorded as theirs', async () => {
    const session = await t.signIn('finance');
    const authenticator = new SoftwareAuthenticator();
    const added = await enrol(session, authenticator);
    expect(added.status).toBe(201);
    const renamed = await t.request
      .patch(`/api/passkeys/${added.body.id}`)
      .set(session.headers())
      .send({ name: 'Work laptop' });
    expect(renamed.body.name).toBe('Work laptop');
    expect(await auditOf('factor.enrolled')).toEqual([
      expect.objectContaining({ actor: finance().email, role: 'finance', method: 'passkey' }),
    ]);
    const me = await t.request.get('/api/session').set(session.headers());
    expect(me.body.stepUpMethods).toEqual(['passkey']);
  });

  it('after 5 minutes, the first one needs a new sign-in (401 recent_sign_in_required)', async () => {
    const session = await t.signIn('finance');
    t.clock.advance(t.config.session.stepUpMs + 1);
    const late = await enrol(session, new SoftwareAuthenticator());
    expect(late.status).toBe(401);
    expect(late.body).toMatchObject({ code: 'recent_sign_in_required' });
    expect(late.body.detail).toMatch(/sign in again/);
    expect((await t.factors.get(finance().email)).passkeys).toEqual([]);
  });

  it('with a passkey, confirms it at sign-in, and proves it again to add or remove one later', async () => {
    const authenticator = new SoftwareAuthenticator();
    const first = await t.signIn('finance');
    const added = await enrol(first, authenticator);
    expect(added.status).toBe(201);

    const asked = await passwordOnly();
    expect(asked.status).toBe(401);
    expect(asked.body).toMatchObject({
      code: 'second_factor_required',
      secondFactor: { methods: ['passkey'] },
    });
    const session = await signInWithPasskey(authenticator);
    expect(await auditOf('session.signIn')).toContainEqual(
      expect.objectContaining({ actor: finance().email, method: 'password+passkey' }),
    );

    t.clock.advance(t.config.session.stepUpMs + 1);
    const removal = await t.request.delete(`/api/passkeys/${added.body.id}`).set(session.headers());
    expect(removal.status).toBe(401);
    expect(removal.body).toMatchObject({
      code: 'step_up_required',
      secondFactor: { methods: ['passkey'] },
    });
    // A stolen session cannot plant a second passkey either.
    const planted = await enrol(session, new SoftwareAuthenticator());
    expect(planted.status).toBe(401);
    expect(planted.body.code).toBe('step_up_required');
  });
});

describe('the policy "require a second factor for everyone"', () => {
  it('is off by default; admins change it after a recent second factor, audited with the change', async () => {
    const admin = await t.signIn('admin');
    t.clock.advance(t.config.session.stepUpMs + 1);
    const lapsed = await setPolicy(admin, true);
    expect(lapsed.status).toBe(401);
    expect(lapsed.body.code).toBe('step_up_required');
    expect(await auditOf('securityPolicy.update')).toEqual([]);

    const proved = await t.request
      .post('/api/session/step-up')
      .set(admin.headers())
      .send({ totp: t.adminTotp() });
    admin.absorb(proved);
    const on = await setPolicy(admin, true);
    expect(on.status).toBe(200);
    expect(on.body).toMatchObject({
      requireSecondFactor: true,
      updatedBy: t.credentials.admin.email,
    });
    expect(await auditOf('securityPolicy.update')).toEqual([
      expect.objectContaining({
        actor: t.credentials.admin.email,
        role: 'admin',
        outcome: 'success',
        before: { secondFactorFor: 'admins' },
        after: { secondFactorFor: 'everyone' },
      }),
    ]);
  });

  it('refuses finance (403) and a bad body (400), changing nothing', async () => {
    const session = await t.signIn('finance');
    const denied = await setPolicy(session, true);
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('forbidden');
    const admin = await t.signIn('admin');
    for (const body of ['yes', null, 1]) {
      const bad = await setPolicy(admin, body);
      expect(bad.status).toBe(400);
      expect(bad.body.code).toBe('invalid_body');
    }
    const extra = await t.request
      .put('/api/security-policy')
      .set(admin.headers())
      .send({ requireSecondFactor: true, admins: false });
    expect(extra.status).toBe(400);
    expect((await t.request.get('/api/security-policy').set(admin.headers())).body).toEqual({
      requireSecondFactor: false,
    });
  });

  it('when on, a person without a factor may only set one up; once they have, the session works', async () => {
    const before = await t.signIn('finance');
    t.clock.advance(1_000);
    const admin = await t.signIn('admin');
    expect((await setPolicy(admin, true)).status).toBe(200);
    t.clock.advance(1_000);

    // Signed in before the policy: asked at the next sign-in, not now.
    expect((await t.request.get('/api/sub-accounts').set(before.headers())).status).toBe(200);

    const session = await t.signIn('finance');
    const me = await t.request.get('/api/session').set(session.headers());
    expect(me.body.secondFactorEnrolmentRequired).toBe(true);
    const held = await t.request.get('/api/sub-accounts').set(session.headers());
    expect(held.status).toBe(403);
    expect(held.body).toMatchObject({ code: 'second_factor_enrolment_required' });
    expect(held.body.detail).toMatch(/organisation requires a second factor/);
    expect((await t.request.get('/api/second-factors').set(session.headers())).status).toBe(200);
    // Admins are not held (they always sign in with a second factor).
    expect((await t.request.get('/api/sub-accounts').set(admin.headers())).status).toBe(200);

    const added = await enrol(session, new SoftwareAuthenticator());
    expect(added.status).toBe(201);
    expect((await t.request.get('/api/sub-accounts').set(session.headers())).status).toBe(200);
    const after = await t.request.get('/api/session').set(session.headers());
    expect(after.body).not.toHaveProperty('secondFactorEnrolmentRequired');
    // Holding a session to the policy is not a denial of a role: nothing is recorded for it.
    expect(await auditOf('access.denied')).toEqual([]);
  });

  it('turned off again, a held session works at once', async () => {
    const admin = await t.signIn('admin');
    await setPolicy(admin, true);
    t.clock.advance(1_000);
    const session = await t.signIn('finance');
    expect((await t.request.get('/api/sub-accounts').set(session.headers())).status).toBe(403);
    const off = await setPolicy(admin, false);
    expect(off.status).toBe(200);
    expect((await t.request.get('/api/sub-accounts').set(session.headers())).status).toBe(200);
  });
});
