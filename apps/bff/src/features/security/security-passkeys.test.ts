// Passkeys over real HTTP with a software authenticator (real ES256 signatures, the server's
// own @simplewebauthn/server checks): enrolment after a proven factor, sign-in and step-up
// with a passkey, and the refusals a browser would never produce but an attacker would.
import { readFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestSession } from '../../test/harness';
import { SoftwareAuthenticator } from '../../test/software-authenticator';
import { testPan } from '../../test/test-pan';

let t: TestApp;
beforeEach(async () => {
  t = await startTestApp({ sim: { transactions: 20 } });
});
afterEach(() => t.close());

const admin = () => t.credentials.admin;
const stepUpWindow = () => t.config.session.stepUpMs;

async function auditOf(action: string) {
  const { items } = await t.audit.list({ limit: 100 });
  return items.filter((r) => r.action === action);
}

/** Sign-in's first answer for the admin: 401 with the second factors and passkey options. */
async function passwordOnly() {
  return t.request
    .post('/api/session')
    .set(t.apiHeaders())
    .send({ email: admin().email, password: admin().password });
}

async function signInWithPasskey(
  authenticator: SoftwareAuthenticator,
  origin = t.config.publicOrigin,
) {
  const first = await passwordOnly();
  expect(first.status).toBe(401);
  const assertion = authenticator.get(first.body.secondFactor.passkeyOptions, origin);
  return t.request
    .post('/api/session')
    .set(t.apiHeaders())
    .send({ email: admin().email, password: admin().password, passkey: assertion });
}

describe('enrolling a passkey', () => {
  it('needs a second factor proven within 5 minutes; then it is listed and audited', async () => {
    const session = await t.signIn('admin');
    t.clock.advance(stepUpWindow() + 1);
    const late = await t.request
      .post('/api/passkeys/registration-options')
      .set(session.headers())
      .send({});
    expect(late.status).toBe(401);
    expect(late.body).toMatchObject({
      code: 'step_up_required',
      secondFactor: { methods: ['totp'] },
    });

    const proved = await t.request
      .post('/api/session/step-up')
      .set(session.headers())
      .send({ totp: t.adminTotp() });
    expect(proved.status).toBe(200);
    session.absorb(proved);
    const id = await t.enrolAdminPasskey(session);

    const list = await t.request.get('/api/second-factors').set(session.headers());
    expect(list.body).toEqual({
      passkeys: [{ id, name: 'Test passkey 1', createdAt: t.clock.now() }],
      totp: { available: true, enabled: true },
    });
    expect(await auditOf('factor.enrolled')).toEqual([
      expect.objectContaining({
        actor: admin().email,
        method: 'passkey',
        target: 'Test passkey 1',
      }),
    ]);
    const me = await t.request.get('/api/session').set(session.headers());
    expect(me.body.stepUpMethods).toEqual(['passkey', 'totp']);
  });

  it('refuses a response made for another origin, or for options never issued', async () => {
    const session = await t.signIn('admin');
    const options = await t.request
      .post('/api/passkeys/registration-options')
      .set(session.headers())
      .send({});
    const foreign = new SoftwareAuthenticator().create(options.body, 'https://evil.example');
    const refused = await t.request
      .post('/api/passkeys')
      .set(session.headers())
      .send({ name: 'Evil', response: foreign });
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe('invalid_passkey');
    // A challenge the server never issued.
    const made = new SoftwareAuthenticator().create(
      { ...options.body, challenge: 'bm90LWEtY2hhbGxlbmdlLWl0LWlzc3VlZA' },
      t.config.publicOrigin,
    );
    const never = await t.request
      .post('/api/passkeys')
      .set(session.headers())
      .send({ name: 'Made up', response: made });
    expect(never.status).toBe(401);
    expect((await t.factors.get(admin().email)).passkeys).toEqual([]);
  });

  it('a malformed body is a 400 naming the field, not a 500', async () => {
    const session = await t.signIn('admin');
    const res = await t.request
      .post('/api/passkeys')
      .set(session.headers())
      .send({ name: '', response: { id: 'not base64!' } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_body');
    expect(res.body.detail).toContain('name');
  });
});

describe('signing in with a passkey', () => {
  it('the password first, then the passkey: signed in and stepped up, audited as password+passkey', async () => {
    await t.enrolAdminPasskey();
    const first = await passwordOnly();
    expect(first.body).toMatchObject({
      code: 'second_factor_required',
      secondFactor: { methods: ['passkey', 'totp'] },
    });
    expect(first.body.secondFactor.passkeyOptions.allowCredentials).toEqual([
      expect.objectContaining({ id: t.authenticator.passkeys[0]?.id }),
    ]);
    const assertion = t.authenticator.get(
      first.body.secondFactor.passkeyOptions,
      t.config.publicOrigin,
    );
    const res = await t.request
      .post('/api/session')
      .set(t.apiHeaders())
      .send({ email: admin().email, password: admin().password, passkey: assertion });
    expect(res.status).toBe(200);
    expect(res.body.stepUpUntil).toBe(t.clock.now() + stepUpWindow());
    const signIns = await auditOf('session.signIn');
    expect(signIns[0]).toMatchObject({ outcome: 'success', method: 'password+passkey' });

    // The same assertion again: its challenge was used up.
    const replay = await t.request
      .post('/api/session')
      .set(t.apiHeaders())
      .send({ email: admin().email, password: admin().password, passkey: assertion });
    expect(replay.status).toBe(401);
    expect(replay.body.code).toBe('invalid_passkey');
  });

  it('refuses another person’s passkey, another origin’s and a wrong password', async () => {
    await t.enrolAdminPasskey();
    // Someone else's passkey, enrolled for them: their authenticator signs our challenge.
    const stranger = new SoftwareAuthenticator();
    const options = await t.request.post('/api/session').set(t.apiHeaders()).send({
      email: admin().email,
      password: admin().password,
    });
    stranger.create(
      { challenge: 'eA', rp: { id: 'localhost' }, user: { id: 'eA' } },
      t.config.publicOrigin,
    );
    const theirs = stranger.passkeys[0];
    if (!theirs) throw new Error('no passkey made');
    await t.factors.addPasskey('someone-else@example.test', {
      id: theirs.id,
      publicKey: theirs.publicKey,
      counter: 0,
      name: 'Theirs',
      createdAt: 1,
    });
    const signed = stranger.get(
      { ...options.body.secondFactor.passkeyOptions, allowCredentials: undefined },
      t.config.publicOrigin,
    );
    const refused = await t.request
      .post('/api/session')
      .set(t.apiHeaders())
      .send({ email: admin().email, password: admin().password, passkey: signed });
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe('invalid_passkey');

    // The admin's own passkey, but the browser was at another origin.
    const foreign = await signInWithPasskey(t.authenticator, 'https://cards.evil.example');
    expect(foreign.status).toBe(401);
    expect(foreign.body.code).toBe('invalid_passkey');

    // A passkey is the second factor, never a replacement for the password.
    const noPassword = await t.request
      .post('/api/session')
      .set(t.apiHeaders())
      .send({
        email: admin().email,
        password: 'wrong',
        passkey: t.authenticator.get(
          options.body.secondFactor.passkeyOptions,
          t.config.publicOrigin,
        ),
      });
    expect(noPassword.status).toBe(401);
    expect(noPassword.body.code).toBe('invalid_credentials');

    const failures = (await auditOf('session.signIn')).filter((r) => r.outcome === 'failed');
    expect(failures.map((r) => r.method)).toEqual([
      'password',
      'password+passkey',
      'password+passkey',
    ]);
  });
});

describe('stepping up with a passkey before a reveal', () => {
  it('a lapsed step-up is renewed by a passkey in the reveal itself', async () => {
    await t.enrolAdminPasskey();
    const session = await t.signIn('admin');
    t.clock.advance(stepUpWindow() + 1);
    const cardId = t.sim.data.cards()[0]?.id;
    const reveal = (body: object) =>
      t.request.post(`/api/cards/${cardId}/reveal`).set(session.headers()).send(body);
    const asked = await reveal({ reason: 'customer call' });
    expect(asked.body).toMatchObject({
      code: 'step_up_required',
      secondFactor: { methods: ['passkey', 'totp'] },
    });
    const options = await t.request
      .post('/api/session/step-up-options')
      .set(session.headers())
      .send({});
    expect(options.status).toBe(200);
    const passkey = t.authenticator.get(options.body, t.config.publicOrigin);
    const res = await reveal({ reason: 'customer call', passkey });
    expect(res.status).toBe(200);
    expect(session.absorb(res)).toBe(true);
    expect((await auditOf('session.stepUp'))[0]).toMatchObject({
      outcome: 'success',
      method: 'passkey',
    });
  });

  it('a refused assertion whose origin holds a card number is refused and recorded, masked', async () => {
    await t.enrolAdminPasskey();
    const session = await t.signIn('admin');
    const options = await t.request
      .post('/api/session/step-up-options')
      .set(session.headers())
      .send({});
    // The origin is the browser's (in clientDataJSON): anyone may write one that looks like this.
    const pan = testPan(77);
    const passkey = t.authenticator.get(options.body, `https://${pan}.cards.example`);
    const refused = await t.request
      .post('/api/session/step-up')
      .set(session.headers())
      .send({ passkey });
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe('invalid_passkey');
    const [record] = (await auditOf('session.stepUp')).filter((r) => r.outcome === 'failed');
    expect(record).toMatchObject({ method: 'passkey', requestId: refused.headers['x-request-id'] });
    expect(record?.detail).toContain(`•••• ${pan.slice(-4)}`);
    expect(JSON.stringify(await t.audit.list({ limit: 100 }))).not.toContain(pan.slice(0, 12));
  });

  it('a step-up assertion is bound to its session: another session cannot use it', async () => {
    await t.enrolAdminPasskey();
    const mine = await t.signIn('admin');
    const other = await t.signIn('admin');
    const options = await t.request
      .post('/api/session/step-up-options')
      .set(mine.headers())
      .send({});
    const passkey = t.authenticator.get(options.body, t.config.publicOrigin);
    const stolen = await t.request
      .post('/api/session/step-up')
      .set(other.headers())
      .send({ passkey });
    expect(stolen.status).toBe(401);
    expect(stolen.body.code).toBe('invalid_passkey');
  });
});

describe('removing factors', () => {
  async function withTwoPasskeys(): Promise<[TestSession, string, string]> {
    const session = await t.signIn('admin');
    const a = await t.enrolAdminPasskey(session);
    const b = await t.enrolAdminPasskey(session);
    return [session, a, b];
  }

  it('TOTP can be turned off only with a passkey; then a code no longer signs in', async () => {
    const session = await t.signIn('admin');
    const off = () =>
      t.request.patch('/api/second-factors/totp').set(session.headers()).send({ enabled: false });
    const refused = await off();
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('last_factor');
    await t.enrolAdminPasskey(session);
    const done = await off();
    expect(done.status).toBe(200);
    expect(done.body.totp).toEqual({ available: true, enabled: false });
    expect((await auditOf('factor.removed'))[0]).toMatchObject({ method: 'totp' });

    const first = await passwordOnly();
    expect(first.body.secondFactor.methods).toEqual(['passkey']);
    const withCode = await t.request
      .post('/api/session')
      .set(t.apiHeaders())
      .send({ email: admin().email, password: admin().password, totp: t.adminTotp() });
    expect(withCode.status).toBe(401);
  });

  it('with TOTP off, removing both passkeys at once leaves exactly one (parallel requests)', async () => {
    const [session, a, b] = await withTwoPasskeys();
    await t.request
      .patch('/api/second-factors/totp')
      .set(session.headers())
      .send({ enabled: false })
      .expect(200);
    const [first, second] = await Promise.all(
      [a, b].map((id) => t.request.delete(`/api/passkeys/${id}`).set(session.headers())),
    );
    expect([first?.status, second?.status].sort()).toEqual([204, 409]);
    expect((await t.factors.get(admin().email)).passkeys).toHaveLength(1);
    expect(await auditOf('factor.removed')).toHaveLength(2); // TOTP off, one passkey
  });

  it('renames and removes only the person’s own passkeys', async () => {
    const [session, a] = await withTwoPasskeys();
    const renamed = await t.request
      .patch(`/api/passkeys/${a}`)
      .set(session.headers())
      .send({ name: '  Work laptop  ' });
    expect(renamed.body).toMatchObject({ id: a, name: 'Work laptop' });
    const [named] = await auditOf('factor.renamed');
    expect(await auditOf('factor.renamed')).toEqual([
      expect.objectContaining({
        actor: admin().email,
        outcome: 'success',
        method: 'passkey',
        target: 'Work laptop',
        before: { name: expect.any(String) },
        after: { name: 'Work laptop' },
        requestId: renamed.headers['x-request-id'],
      }),
    ]);
    expect(named?.before?.name).not.toBe('Work laptop');
    // The name it already has: nothing changes, nothing more is recorded.
    await t.request
      .patch(`/api/passkeys/${a}`)
      .set(session.headers())
      .send({ name: 'Work laptop' })
      .expect(200);
    expect(await auditOf('factor.renamed')).toHaveLength(1);
    await t.factors.addPasskey('someone-else@example.test', {
      id: 'c29tZW9uZS1lbHNlcy1wYXNza2V5',
      publicKey: 'eA',
      counter: 0,
      name: 'Theirs',
      createdAt: 1,
    });
    const notMine = await t.request
      .delete('/api/passkeys/c29tZW9uZS1lbHNlcy1wYXNza2V5')
      .set(session.headers());
    expect(notMine.status).toBe(404);
    expect((await t.factors.get('someone-else@example.test')).passkeys).toHaveLength(1);
    t.clock.advance(stepUpWindow() + 1);
    const late = await t.request.delete(`/api/passkeys/${a}`).set(session.headers());
    expect(late.status).toBe(401);
    expect(late.body.code).toBe('step_up_required');
  });
});

describe('passkey renames at once', () => {
  it('record each the name it replaced: the trail reads as one chain of names', async () => {
    const session = await t.signIn('admin');
    const id = await t.enrolAdminPasskey(session);
    const first = (await t.factors.get(admin().email)).passkeys[0]?.name;
    const names = ['Phone', 'Tablet', 'Watch', 'Desk key', 'Travel key', 'Spare key'];
    const answers = await Promise.all(
      names.map((name) =>
        t.request.patch(`/api/passkeys/${id}`).set(session.headers()).send({ name }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(names.map(() => 200));
    const records = await auditOf('factor.renamed');
    expect(records).toHaveLength(names.length);
    // Following each record's "before" back from the name the passkey ends with passes through
    // every name once and ends at the one it was enrolled with.
    const was = new Map(records.map((r) => [r.after?.name, r.before?.name]));
    const chain = [(await t.factors.get(admin().email)).passkeys[0]?.name];
    while (was.has(chain.at(-1)) && chain.length <= names.length) chain.push(was.get(chain.at(-1)));
    expect(chain.at(-1)).toBe(first);
    expect(new Set(chain.slice(0, -1))).toEqual(new Set(names));
  });
});

describe('passkey names', () => {
  // Made at run time: a card number, written as people (or someone hiding one) write it.
  const pan = testPan(55_501);
  const inFours = (separator: string) => pan.match(/.{4}/g)?.join(separator) ?? pan;
  const refused = [
    ['a right-to-left override', 'Key\u202Eyek', 'text-direction control'],
    ['a line break', 'Key\r\nforged: entry', 'control characters'],
    ['a NUL', 'Key\u0000x', 'control characters'],
    ['only a zero-width space', '\u200B', 'visible character'],
    ['a card number', `Card ${pan}`, 'card number'],
    ['a card number in dotted groups', `Card ${inFours('.')}`, 'card number'],
    ['a card number in groups joined by no-break spaces', inFours('\u00A0'), 'card number'],
    ['a card number in groups joined by thin spaces', inFours('\u2009'), 'card number'],
    ['a card number in groups joined by slashes', inFours('/'), 'card number'],
    ['a card number in groups joined by underscores', inFours('_'), 'card number'],
  ] as const;

  /** What would show a name anywhere: the factor store, the audit trail and its CSV. */
  async function everywhere(session: TestSession) {
    const csv = await t.request.get('/api/audit/export.csv?tz=UTC').set(session.headers());
    expect(csv.status).toBe(200);
    const file = await readFile(t.audit.path, 'utf8');
    return `${JSON.stringify(await t.factors.get(admin().email))}\n${file}\n${csv.text}`;
  }

  it.each(refused)(
    'a name with %s is refused when enrolling: 400 with the rule, nothing kept anywhere',
    async (_what, name, says) => {
      const session = await t.signIn('admin');
      const options = await t.request
        .post('/api/passkeys/registration-options')
        .set(session.headers())
        .send({});
      expect(options.status).toBe(200);
      const response = t.authenticator.create(options.body, t.config.publicOrigin);
      const res = await t.request
        .post('/api/passkeys')
        .set(session.headers())
        .send({ name, response });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body).toMatchObject({ status: 400, code: 'invalid_body' });
      expect(res.body.detail).toMatch(new RegExp(`^name: [^;]*${says}`));
      expect(res.body.requestId).toBe(res.headers['x-request-id']);
      expect((await t.factors.get(admin().email)).passkeys).toEqual([]);
      expect(await auditOf('factor.enrolled')).toEqual([]);
      const shown = await everywhere(session);
      expect(shown).not.toContain(name.trim());
      expect(shown).not.toContain(pan.slice(-8));
    },
  );

  it.each(refused)(
    'a rename to a name with %s is refused: 400, the name stays',
    async (_what, name, says) => {
      const session = await t.signIn('admin');
      const id = await t.enrolAdminPasskey(session);
      const res = await t.request
        .patch(`/api/passkeys/${id}`)
        .set(session.headers())
        .send({ name });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('invalid_body');
      expect(res.body.detail).toMatch(new RegExp(`^name: [^;]*${says}`));
      const stored = (await t.factors.get(admin().email)).passkeys;
      expect(stored.map((p) => p.name)).toEqual(['Test passkey 1']);
      expect(await everywhere(session)).not.toContain(pan.slice(-8));
    },
  );

  it('a name with a date, a time or an amount is a name', async () => {
    const session = await t.signIn('admin');
    const id = await t.enrolAdminPasskey(session);
    for (const name of [
      'YubiKey 2026/11/26',
      'Laptop 2026-11-26T12:30:45Z',
      'Key no. 1,234,567.89',
    ]) {
      const res = await t.request
        .patch(`/api/passkeys/${id}`)
        .set(session.headers())
        .send({ name });
      expect(res.status, name).toBe(200);
      expect(res.body.name).toBe(name);
    }
  });

  it('a name kept from before these rules is shown, and recorded at removal, masked', async () => {
    const session = await t.signIn('admin');
    await t.enrolAdminPasskey(session);
    await t.factors.addPasskey(admin().email, {
      id: 'b2xkLW5hbWVkLXBhc3NrZXk',
      publicKey: 'eA',
      counter: 0,
      name: `Old ${inFours('.')}`,
      createdAt: 1,
    });
    const list = await t.request.get('/api/second-factors').set(session.headers());
    expect(list.body.passkeys.map((p: { name: string }) => p.name).sort()).toEqual([
      `Old •••• ${pan.slice(-4)}`,
      'Test passkey 1',
    ]);
    const removed = await t.request
      .delete('/api/passkeys/b2xkLW5hbWVkLXBhc3NrZXk')
      .set(session.headers());
    expect(removed.status).toBe(204);
    expect((await auditOf('factor.removed')).map((r) => r.target)).toEqual([
      `Old •••• ${pan.slice(-4)}`,
    ]);
  });
});
