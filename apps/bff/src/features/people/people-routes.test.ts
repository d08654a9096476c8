// The People endpoints over real HTTP on the embedded engine, with a real PeopleStore: who may
// call them, CSRF and Origin, the recent second factor, each refusal's code, the audit trail,
// and signing up from an invitation (lookup, accept, refusals, the address's attempt limit; an
// admin's authenticator: invitation-authenticator-routes.test.ts).
import type { AuditRecord } from '@card-console/shared/api/audit';
import { apiErrorBodySchema } from '@card-console/shared/api/error';
import {
  invitationCreatedSchema,
  peopleListSchema,
  personViewSchema,
  sessionListSchema,
} from '@card-console/shared/api/people';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { SqlEngine } from '../../platform/sql/sql-engine';
import { hashParams, productionScrypt, verifyPassword } from '../../platform/users/password-hash';
import { migratedMemoryEngine } from '../../test/engines/embedded';
import { ManualClock } from '../../test/manual-clock';
import {
  FakePersonSessions,
  type PeopleTestApp,
  startPeopleApp,
  type TestCookie,
} from '../../test/people-test-app';
import { testTotpSecrets } from '../../test/totp-keys';
import { PeopleStore } from './people-store';
import { emptyPeople, fileUser } from './people-store.contract';

const ANA = 'ana@example.test'; // the admin who calls
const BO = 'bo@example.test'; // finance
const SSO = 'sso@example.test';
const NEW = 'new@example.test';
const PASSWORD = 'a long enough password';
const DAY = 24 * 60 * 60 * 1000;

let engine: SqlEngine;
let clock: ManualClock;
let store: PeopleStore;
let sessions: FakePersonSessions;
let t: PeopleTestApp;
let ana: TestCookie;
let sent: { email: string; link: string }[];

beforeAll(async () => {
  engine = await migratedMemoryEngine();
});
afterAll(() => engine.close());

beforeEach(async () => {
  await emptyPeople(engine);
  clock = new ManualClock();
  store = new PeopleStore(engine, clock, testTotpSecrets());
  await store.importUsers([await fileUser(ANA, 'admin'), await fileUser(BO, 'finance')]);
  await store.upsertSsoPerson({
    issuer: 'https://idp.example.test',
    subject: 'sso-1',
    email: SSO,
    role: 'finance',
  });
  sessions = new FakePersonSessions();
  t = await startPeopleApp({ store, clock, sessions });
  ana = await t.signIn(ANA, 'admin');
});
afterEach(() => t.close());

const problem = (body: unknown) => apiErrorBodySchema.parse(body);
const enc = encodeURIComponent;

/** The audit records of `action`, oldest first. */
async function records(app: PeopleTestApp, action?: AuditRecord['action']) {
  const { items } = await app.audit.list({ limit: 500, ...(action ? { filter: { action } } : {}) });
  return items.reverse();
}

async function invite(email = NEW, role: 'admin' | 'finance' = 'finance', days?: number) {
  const res = await t.request
    .post('/api/people/invitations')
    .set(t.headers(ana))
    .send({ email, role, ...(days ? { days } : {}) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const created = invitationCreatedSchema.parse(res.body);
  return { ...created, token: created.link.split('#')[1] as string };
}

describe('who may call the People endpoints', () => {
  it('answers 401 signed out, 403 to finance (audited), and lists people to an admin', async () => {
    const out = await t.request.get('/api/people').set(t.headers());
    expect(out.status).toBe(401);
    expect(problem(out.body).code).toBe('unauthenticated');

    const bo = await t.signIn(BO, 'finance');
    const denied = await t.request.get('/api/people').set(t.headers(bo));
    expect(denied.status).toBe(403);
    expect(problem(denied.body).code).toBe('forbidden');
    const change = await t.request.post(`/api/people/${enc(ANA)}/disable`).set(t.headers(bo));
    expect(change.status).toBe(403);
    const refusals = await records(t, 'access.denied');
    expect(refusals.map((r) => [r.actor, r.attempted])).toEqual([
      [BO, 'people.view'],
      [BO, 'people.change'],
    ]);
    expect((await store.find(ANA))?.disabled).toBe(false);

    sessions.add(BO, { id: 'bo-1', method: 'password', startedAt: 1, lastSeenAt: 2 });
    const list = await t.request.get('/api/people').set(t.headers(ana));
    expect(list.status).toBe(200);
    const body = peopleListSchema.parse(list.body);
    expect(body.people.map((p) => [p.email, p.role, p.source, p.you, p.activeSessions])).toEqual([
      [ANA, 'admin', 'file', true, 0],
      [BO, 'finance', 'file', false, 1],
      [SSO, 'finance', 'sso', false, 0],
    ]);
    expect(body.invitations).toEqual([]);
  });

  it('needs X-CSRF on every call and our Origin on changes', async () => {
    const noHeader = await t.request.get('/api/people').set({ Cookie: ana.cookie });
    expect(noHeader.status).toBe(401);
    expect(problem(noHeader.body).code).toBe('csrf_required');

    const foreign = await t.request
      .post(`/api/people/${enc(BO)}/disable`)
      .set({ ...t.headers(ana), Origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    expect(problem(foreign.body).code).toBe('bad_origin');
    expect((await store.find(BO))?.disabled).toBe(false);

    const anonymous = await t.request
      .post('/api/invitations/accept')
      .set({ ...t.headers(), Origin: 'https://evil.example' })
      .send({ token: 'A'.repeat(43), password: PASSWORD });
    expect(anonymous.status).toBe(403);
    expect(problem(anonymous.body).code).toBe('bad_origin');
  });

  it('answers 404 as for an unknown path when the app keeps no people', async () => {
    const bare = await startPeopleApp({ store, clock, withoutPeople: true });
    try {
      const admin = await bare.signIn(ANA, 'admin');
      for (const res of [
        await bare.request.get('/api/people').set(bare.headers(admin)),
        await bare.request
          .post('/api/invitations/lookup')
          .set(bare.headers())
          .send({ token: 'A'.repeat(43) }),
      ]) {
        expect(res.status).toBe(404);
        expect(problem(res.body).code).toBe('not_found');
      }
    } finally {
      await bare.close();
    }
  });
});

describe('a recent second factor', () => {
  it('is required for every change (401 step_up_required, nothing changed, audited)', async () => {
    const stale = await t.signIn(ANA, 'admin', { steppedUp: false });
    const res = await t.request.post(`/api/people/${enc(BO)}/disable`).set(t.headers(stale));
    expect(res.status).toBe(401);
    const body = problem(res.body);
    expect(body.code).toBe('step_up_required');
    expect(body).toMatchObject({ secondFactor: { methods: ['totp'] } });
    expect((await store.find(BO))?.disabled).toBe(false);
    expect(sessions.endedAll).toEqual([]);

    const invited = await t.request
      .post('/api/people/invitations')
      .set(t.headers(stale))
      .send({ email: NEW, role: 'finance' });
    expect(invited.status).toBe(401);
    expect(await store.find(NEW)).toBeUndefined();

    const audited = await records(t);
    expect(audited.map((r) => [r.action, r.actor, r.target, r.outcome, r.detail])).toEqual([
      ['person.disable', ANA, BO, 'denied', 'step_up_required: disable'],
      ['person.invite', ANA, NEW, 'denied', 'step_up_required: invite as finance for 7 days'],
    ]);
  });

  it('is not asked for a change refused anyway (yourself: 400 first)', async () => {
    const stale = await t.signIn(ANA, 'admin', { steppedUp: false });
    const res = await t.request.delete(`/api/people/${enc(ANA)}`).set(t.headers(stale));
    expect(res.status).toBe(400);
    expect(problem(res.body).code).toBe('invalid_request');
    expect(await store.find(ANA)).toBeDefined();
  });

  it('lapses five minutes after the check', async () => {
    clock.advance(5 * 60 * 1000 + 1);
    const res = await t.request.post(`/api/people/${enc(BO)}/disable`).set(t.headers(ana));
    expect(res.status).toBe(401);
    expect(problem(res.body).code).toBe('step_up_required');
  });
});

describe('changing people', () => {
  it('changes a role, ends their sessions and audits before and after', async () => {
    const res = await t.request
      .put(`/api/people/${enc(BO)}/role`)
      .set(t.headers(ana))
      .send({ role: 'admin' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(personViewSchema.parse(res.body)).toMatchObject({
      email: BO,
      role: 'admin',
      you: false,
    });
    expect((await store.find(BO))?.role).toBe('admin');
    expect(sessions.endedAll).toEqual([BO]);
    const [record] = await records(t, 'person.role');
    expect(record).toMatchObject({
      actor: ANA,
      role: 'admin',
      target: BO,
      outcome: 'success',
      detail: 'role finance → admin',
    });
  });

  it('refuses the last admin (409 last_admin), an SSO role (409 role_from_provider), an unknown person (404)', async () => {
    const demote = await t.request
      .put(`/api/people/${enc(ANA)}/role`)
      .set(t.headers(ana))
      .send({ role: 'finance' });
    expect(demote.status).toBe(409);
    expect(problem(demote.body).code).toBe('last_admin');
    expect((await store.find(ANA))?.role).toBe('admin');

    const sso = await t.request
      .put(`/api/people/${enc(SSO)}/role`)
      .set(t.headers(ana))
      .send({ role: 'admin' });
    expect(sso.status).toBe(409);
    expect(problem(sso.body).code).toBe('role_from_provider');

    const nobody = await t.request
      .post(`/api/people/${enc('nobody@example.test')}/disable`)
      .set(t.headers(ana));
    expect(nobody.status).toBe(404);
    expect(problem(nobody.body).code).toBe('not_found');

    const badRole = await t.request
      .put(`/api/people/${enc(BO)}/role`)
      .set(t.headers(ana))
      .send({ role: 'owner' });
    expect(badRole.status).toBe(400);
    const badEmail = await t.request.post('/api/people/not-an-email/disable').set(t.headers(ana));
    expect(badEmail.status).toBe(400);
    expect(problem(badEmail.body).code).toBe('invalid_path');

    expect(sessions.endedAll).toEqual([]);
    const audited = await records(t);
    expect(audited.map((r) => [r.action, r.target, r.outcome, r.detail])).toEqual([
      ['person.role', ANA, 'denied', 'last_admin: role → finance'],
      ['person.role', SSO, 'denied', 'role_from_provider: role → admin'],
      ['person.disable', 'nobody@example.test', 'failed', 'not_found: disable'],
    ]);
  });

  it('disables and enables a person; never yourself (400)', async () => {
    const self = await t.request.post(`/api/people/${enc(ANA)}/disable`).set(t.headers(ana));
    expect(self.status).toBe(400);
    expect(problem(self.body).detail).toMatch(/cannot disable yourself/);
    expect((await store.find(ANA))?.disabled).toBe(false);

    const off = await t.request.post(`/api/people/${enc(BO)}/disable`).set(t.headers(ana));
    expect(off.status).toBe(200);
    expect(personViewSchema.parse(off.body).disabled).toBe(true);
    expect(sessions.endedAll).toEqual([BO]);
    const on = await t.request.post(`/api/people/${enc(BO)}/enable`).set(t.headers(ana));
    expect(on.status).toBe(200);
    expect(personViewSchema.parse(on.body).disabled).toBe(false);
    expect(sessions.endedAll).toEqual([BO]);

    const audited = await records(t);
    expect(audited.map((r) => [r.action, r.target, r.outcome, r.detail])).toEqual([
      ['person.disable', ANA, 'denied', 'invalid_request: disable'],
      ['person.disable', BO, 'success', 'disabled'],
      ['person.enable', BO, 'success', 'enabled'],
    ]);
  });

  it('removes a person and ends their sessions; never yourself (400); again is 404', async () => {
    const self = await t.request.delete(`/api/people/${enc(ANA)}`).set(t.headers(ana));
    expect(self.status).toBe(400);
    expect(problem(self.body).detail).toMatch(/cannot remove yourself/);

    const gone = await t.request.delete(`/api/people/${enc(BO)}`).set(t.headers(ana));
    expect(gone.status).toBe(204);
    expect(await store.find(BO)).toBeUndefined();
    expect(sessions.endedAll).toEqual([BO]);
    const again = await t.request.delete(`/api/people/${enc(BO)}`).set(t.headers(ana));
    expect(again.status).toBe(404);
    const audited = await records(t, 'person.remove');
    expect(audited.map((r) => [r.target, r.outcome, r.detail])).toEqual([
      [ANA, 'denied', 'invalid_request: remove'],
      [BO, 'success', 'removed (was finance)'],
      [BO, 'failed', 'not_found: remove'],
    ]);
  });

  it("lists a person's sessions (yours marked current) and ends one or all", async () => {
    sessions.add(ANA, { id: ana.ref, method: 'password', startedAt: 10, lastSeenAt: 20 });
    sessions.add(ANA, { id: 'other-tab', method: 'passkey', startedAt: 5, lastSeenAt: 6 });
    sessions.add(BO, { id: 'bo-1', method: 'sso', startedAt: 1, lastSeenAt: 2 });
    sessions.add(BO, { id: 'bo-2', method: 'password', startedAt: 3, lastSeenAt: 4 });

    const mine = await t.request.get(`/api/people/${enc(ANA)}/sessions`).set(t.headers(ana));
    expect(mine.status).toBe(200);
    expect(sessionListSchema.parse(mine.body).sessions).toEqual([
      {
        id: ana.ref,
        method: 'password',
        startedAt: new Date(10).toISOString(),
        lastSeenAt: new Date(20).toISOString(),
        current: true,
      },
      {
        id: 'other-tab',
        method: 'passkey',
        startedAt: new Date(5).toISOString(),
        lastSeenAt: new Date(6).toISOString(),
        current: false,
      },
    ]);

    const one = await t.request.delete(`/api/people/${enc(BO)}/sessions/bo-1`).set(t.headers(ana));
    expect(one.status).toBe(204);
    expect((await sessions.list(BO)).map((s) => s.id)).toEqual(['bo-2']);
    const unknown = await t.request
      .delete(`/api/people/${enc(BO)}/sessions/bo-1`)
      .set(t.headers(ana));
    expect(unknown.status).toBe(404);
    const all = await t.request.delete(`/api/people/${enc(BO)}/sessions`).set(t.headers(ana));
    expect(all.status).toBe(204);
    expect(await sessions.list(BO)).toEqual([]);
    const nobody = await t.request
      .get(`/api/people/${enc('nobody@example.test')}/sessions`)
      .set(t.headers(ana));
    expect(nobody.status).toBe(404);

    const audited = await records(t, 'person.sessionsEnd');
    expect(audited.map((r) => [r.target, r.outcome, r.detail])).toEqual([
      [BO, 'success', 'session bo-1 ended'],
      [BO, 'failed', 'not_found: end session bo-1'],
      [BO, 'success', '1 session ended'],
    ]);
  });
});

describe('invitations', () => {
  it('invites: the link once in the answer, the person pending, the invitation listed, audited without the token', async () => {
    const created = await invite(NEW, 'finance', 3);
    expect(created).toMatchObject({
      email: NEW,
      role: 'finance',
      emailed: false,
      expiresAt: new Date(clock.now() + 3 * DAY).toISOString(),
    });
    expect(created.link).toMatch(
      new RegExp(`^${t.config.publicOrigin.replace(/\./g, '\\.')}/join#[A-Za-z0-9_-]{43}$`),
    );

    const list = peopleListSchema.parse(
      (await t.request.get('/api/people').set(t.headers(ana))).body,
    );
    expect(list.people.find((p) => p.email === NEW)).toMatchObject({
      pending: true,
      source: 'invited',
    });
    expect(list.invitations).toEqual([
      { email: NEW, role: 'finance', invitedBy: ANA, expiresAt: created.expiresAt },
    ]);
    const [record] = await records(t, 'person.invite');
    expect(record).toMatchObject({ actor: ANA, target: NEW, outcome: 'success' });
    expect(JSON.stringify(record)).not.toContain(created.token);

    const exists = await t.request
      .post('/api/people/invitations')
      .set(t.headers(ana))
      .send({ email: BO, role: 'admin' });
    expect(exists.status).toBe(409);
    expect(problem(exists.body)).toMatchObject({
      code: 'person_exists',
      detail: `${BO} can already sign in: change their role instead of inviting them.`,
    });
    // Someone here but disabled cannot sign in: what to do is enable them.
    await store.disable(BO);
    const disabled = await t.request
      .post('/api/people/invitations')
      .set(t.headers(ana))
      .send({ email: BO, role: 'finance' });
    expect(disabled.status).toBe(409);
    expect(problem(disabled.body)).toMatchObject({
      code: 'person_exists',
      detail: `${BO} is already in Card Console, disabled: enable them instead of inviting them.`,
    });
    await store.enable(BO);
    const tooLong = await t.request
      .post('/api/people/invitations')
      .set(t.headers(ana))
      .send({ email: NEW, role: 'finance', days: 31 });
    expect(tooLong.status).toBe(400);
    expect(problem(tooLong.body).detail).toMatch(/days must be at most 30/);
  });

  it('hands the link to email delivery when there is one', async () => {
    await t.close();
    sent = [];
    t = await startPeopleApp({
      store,
      clock,
      sessions,
      sendInvitation: async (email, link) => void sent.push({ email, link }),
    });
    ana = await t.signIn(ANA, 'admin');
    const created = await invite();
    expect(created.emailed).toBe(true);
    expect(sent).toEqual([{ email: NEW, link: created.link }]);
  });

  it('withdraws an open invitation (the pending person goes); again is 404', async () => {
    const { token } = await invite();
    const res = await t.request.delete(`/api/people/invitations/${enc(NEW)}`).set(t.headers(ana));
    expect(res.status).toBe(204);
    expect(await store.find(NEW)).toBeUndefined();
    const again = await t.request.delete(`/api/people/invitations/${enc(NEW)}`).set(t.headers(ana));
    expect(again.status).toBe(404);
    const lookup = await t.request.post('/api/invitations/lookup').set(t.headers()).send({ token });
    expect(lookup.status).toBe(410);
    expect(problem(lookup.body).code).toBe('invitation_revoked');
  });

  it('signs up a finance person: lookup, accept (hashed as sign-in hashes), then used (410)', async () => {
    const { token } = await invite();
    const lookup = await t.request.post('/api/invitations/lookup').set(t.headers()).send({ token });
    expect(lookup.status).toBe(200);
    expect(lookup.body).toEqual({
      email: NEW,
      role: 'finance',
      expiresAt: expect.any(String),
      needsSecondFactor: false,
    });

    const accepted = await t.request
      .post('/api/invitations/accept')
      .set(t.headers())
      .send({ token, password: PASSWORD });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(201);
    expect(accepted.body).toEqual({ email: NEW });
    const person = await store.find(NEW);
    expect(person?.pending).toBe(false);
    expect(hashParams(person?.passwordHash ?? '')).toEqual(productionScrypt);
    expect(await verifyPassword(PASSWORD, person?.passwordHash ?? '')).toBe(true);

    const twice = await t.request
      .post('/api/invitations/accept')
      .set(t.headers())
      .send({ token, password: PASSWORD });
    expect(twice.status).toBe(410);
    expect(problem(twice.body).code).toBe('invitation_used');
    const looked = await t.request.post('/api/invitations/lookup').set(t.headers()).send({ token });
    expect(looked.status).toBe(410);
    expect(problem(looked.body).code).toBe('invitation_used');

    const [signUp] = await records(t, 'person.signUp');
    expect(signUp).toMatchObject({
      actor: NEW,
      target: NEW,
      outcome: 'success',
      detail: 'signed up',
    });
  });

  it('refuses a bad token (404), a malformed one (400), an expired one (410) and a replaced one (410)', async () => {
    const unknown = await t.request
      .post('/api/invitations/accept')
      .set(t.headers())
      .send({ token: 'B'.repeat(43), password: PASSWORD });
    expect(unknown.status).toBe(404);
    expect(problem(unknown.body).code).toBe('not_found');
    const malformed = await t.request
      .post('/api/invitations/lookup')
      .set(t.headers())
      .send({ token: 'short' });
    expect(malformed.status).toBe(400);
    expect(problem(malformed.body).detail).toMatch(/not an invitation link/);
    const weak = await t.request
      .post('/api/invitations/accept')
      .set(t.headers())
      .send({ token: 'B'.repeat(43), password: 'short' });
    expect(weak.status).toBe(400);

    const first = await invite(NEW, 'finance', 1);
    const second = await invite(NEW, 'finance', 1);
    const replaced = await t.request
      .post('/api/invitations/accept')
      .set(t.headers())
      .send({ token: first.token, password: PASSWORD });
    expect(replaced.status).toBe(410);
    expect(problem(replaced.body).code).toBe('invitation_revoked');

    clock.advance(DAY);
    const expired = await t.request
      .post('/api/invitations/accept')
      .set(t.headers())
      .send({ token: second.token, password: PASSWORD });
    expect(expired.status).toBe(410);
    expect(problem(expired.body).code).toBe('invitation_expired');
    expect((await store.find(NEW))?.pending).toBe(true);
  });

  it("counts lookups and acceptances against the address's sign-in attempts (429)", async () => {
    await t.close();
    t = await startPeopleApp({
      store,
      clock,
      sessions,
      rateLimits: { signInFailuresPerAddress: 3 },
    });
    ana = await t.signIn(ANA, 'admin');
    const { token } = await invite();
    for (let i = 0; i < 3; i++) {
      const res = await t.request
        .post('/api/invitations/accept')
        .set(t.headers())
        .send({ token: `${'C'.repeat(42)}${i}`, password: PASSWORD });
      expect(res.status).toBe(404);
    }
    const limited = await t.request
      .post('/api/invitations/accept')
      .set(t.headers())
      .send({ token, password: PASSWORD });
    expect(limited.status).toBe(429);
    expect(problem(limited.body).code).toBe('rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // Nothing was checked: the invitation is still open.
    expect((await store.find(NEW))?.pending).toBe(true);
    const lookup = await t.request.post('/api/invitations/lookup').set(t.headers()).send({ token });
    expect(lookup.status).toBe(429);
  });
});
