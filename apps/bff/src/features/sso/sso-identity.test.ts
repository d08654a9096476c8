// Who a single sign-on makes a person, against a real OpenID Provider over real HTTP: only an
// email the provider vouches for names anyone, a users-file person is reached only through a
// link an operator made, and a sign-in the audit trail cannot hold gets no session.
import type { AuditRecord } from '@card-console/shared/api/audit';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ProviderPerson } from '../../demo/identity-provider';
import { startTestApp, type TestApp } from '../../test/harness';
import {
  startTestIdentityProvider,
  type TestIdentityProvider,
  walkToCallback,
} from '../../test/test-identity-provider';
import { testPan } from '../../test/test-pan';
import { sessionCookieFrom } from '../../test/test-session';

let idp: TestIdentityProvider;
let t: TestApp;
const publicOrigin = 'http://localhost:3000';

beforeAll(async () => {
  idp = await startTestIdentityProvider(publicOrigin);
  t = await startTestApp({ sim: { transactions: 20 }, identityProvider: idp });
});
afterAll(async () => {
  await t?.close();
  await idp?.close();
});

let people = 0;
/** A new account at the provider; its token's claims as given (`undefined` leaves one out). */
function providerAccount(claims: ProviderPerson['claims'], groups = ['cc-admins']) {
  const n = ++people;
  const person: ProviderPerson = {
    sub: `sub-identity-${n}`,
    email: `account-${n}@idp.example.test`,
    name: `Account ${n}`,
    groups,
    ...(claims ? { claims } : {}),
  };
  idp.people.set(person.email, person);
  return person;
}

/** A whole sign-in at the provider and back; the answer to the callback. */
async function signInAs(person: ProviderPerson) {
  const { stopped, browser } = await walkToCallback(t.url, idp, person.email);
  return t.ssoCallback(stopped, browser);
}

const sessionCookie = (res: { headers: Record<string, unknown> }) =>
  sessionCookieFrom(res, 'cc_session');

async function lastSignIn(): Promise<AuditRecord | undefined> {
  const { items } = await t.audit.list({ limit: 1, filter: { action: 'session.signIn' } });
  return items[0];
}

const localAdmin = () => t.credentials.admin.email;

describe('an email the provider does not vouch for names nobody', () => {
  it.each([
    ['no email_verified claim (as Entra ID sends)', { email_verified: undefined }],
    ['email_verified "false", a string (as Cognito sends)', { email_verified: 'false' }],
    ['email_verified "true", a string', { email_verified: 'true' }],
    ['email_verified false', { email_verified: false }],
  ])('%s: no session, not as the users-file admin either; audited', async (_, verified) => {
    const attacker = providerAccount({ email: localAdmin(), ...verified });
    const res = await signInAs(attacker);
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('/sign-in?sso=failed');
    expect(sessionCookie(res)).toBeUndefined();
    expect(await lastSignIn()).toMatchObject({
      actor: '(unknown account)',
      outcome: 'failed',
      method: 'sso',
      detail: expect.stringContaining('no usable verified email'),
    });
  });

  it('a verified email of a person with no users-file account signs in with the mapped role', async () => {
    const person = providerAccount({ email: 'New.Person@Example.test', email_verified: true }, [
      'cc-finance',
    ]);
    const res = await signInAs(person);
    expect(res.headers.location).toBe('/cards');
    const cookie = sessionCookie(res) ?? '';
    const me = await t.request.get('/api/session').set(t.apiHeaders({ Cookie: cookie }));
    expect(me.body).toMatchObject({ email: 'new.person@example.test', role: 'finance' });
  });
});

describe('a users-file person is reached through single sign-on only by a link', () => {
  it('a verified email equal to a users-file admin’s, not linked: refused, the admin’s factors untouched', async () => {
    const factorsBefore = await t.factors.get(localAdmin());
    const attacker = providerAccount({ email: localAdmin(), email_verified: true });
    const res = await signInAs(attacker);
    expect(res.headers.location).toBe('/sign-in?sso=failed');
    expect(sessionCookie(res)).toBeUndefined();
    expect(await lastSignIn()).toMatchObject({
      actor: '(unknown account)',
      outcome: 'failed',
      detail: expect.stringContaining(`not linked to this provider subject (${attacker.sub})`),
    });
    expect(await t.factors.get(localAdmin())).toEqual(factorsBefore);
    // The real admin still signs in with their password and TOTP.
    expect((await t.signIn('admin')).role).toBe('admin');
  });

  it('a linked subject signs in as the users-file person, with the file’s role; disabling ends it', async () => {
    const person = providerAccount({ email: 'someone-else@idp.example.test' }, ['cc-finance']);
    const admin = t.users.find(localAdmin());
    if (!admin) throw new Error('no admin in the users directory');
    const everyone = () =>
      ['finance', 'admin'].map((r) => t.users.find(t.credentials[r as 'admin'].email));
    const linked = { ...admin, sso: { issuer: idp.issuer, subject: person.sub } };
    const others = everyone().filter((u) => u && u.email !== admin.email) as (typeof admin)[];
    t.users.replaceUsers([...others, linked]);
    try {
      const res = await signInAs(person);
      expect(res.headers.location).toBe('/cards');
      const cookie = sessionCookie(res) ?? '';
      const me = await t.request.get('/api/session').set(t.apiHeaders({ Cookie: cookie }));
      // The file's role (admin), not the provider's groups (finance).
      expect(me.body).toMatchObject({
        email: admin.email,
        role: 'admin',
        method: 'sso',
        stepUpMethods: ['provider'],
      });
      expect(await lastSignIn()).toMatchObject({ actor: admin.email, outcome: 'success' });

      // Disabled in the file: the session ends at its next request, and no new one is made.
      t.users.replaceUsers([...others, { ...linked, disabled: true }]);
      const after = await t.request.get('/api/session').set(t.apiHeaders({ Cookie: cookie }));
      expect(after.status).toBe(401);
      const again = await signInAs(person);
      expect(again.headers.location).toBe('/sign-in?sso=failed');
      expect(sessionCookie(again)).toBeUndefined();
      expect(await lastSignIn()).toMatchObject({
        actor: admin.email,
        outcome: 'failed',
        detail: expect.stringContaining('disabled'),
      });
    } finally {
      t.users.replaceUsers([...others, admin]);
    }
  });

  it('an unlinked single sign-on session ends once the users file holds its email', async () => {
    const person = providerAccount({ email: 'later-local@example.test', email_verified: true }, [
      'cc-finance',
    ]);
    const cookie = sessionCookie(await signInAs(person)) ?? '';
    const me = () => t.request.get('/api/session').set(t.apiHeaders({ Cookie: cookie }));
    expect((await me()).status).toBe(200);
    const finance = t.users.find(t.credentials.finance.email);
    const admin = t.users.find(localAdmin());
    if (!finance || !admin) throw new Error('no test users');
    t.users.replaceUsers([finance, admin, { ...finance, email: 'later-local@example.test' }]);
    try {
      expect((await me()).status).toBe(401);
    } finally {
      t.users.replaceUsers([finance, admin]);
    }
  });
});

describe('what a provider sends as an email is a name only when it is one', () => {
  it.each([
    ['a right-to-left override', 'adm\u202Ein@example.test'],
    ['a line break', 'a\nb@example.test'],
    ['a NUL', 'a\u0000b@example.test'],
    ['a card number', () => `${testPan()}@example.test`],
  ])('a verified email holding %s: no session, audited without it', async (_, email) => {
    const claim = typeof email === 'function' ? email() : email;
    const person = providerAccount({ email: claim, email_verified: true }, ['cc-finance']);
    const res = await signInAs(person);
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('/sign-in?sso=failed');
    expect(sessionCookie(res)).toBeUndefined();
    const record = await lastSignIn();
    expect(record).toMatchObject({ outcome: 'failed', actor: '(unknown account)' });
    expect(JSON.stringify(record)).not.toContain(claim);
  });
});

describe('a sign-in the audit trail cannot hold', () => {
  it('gets no session: the record is written first, and its failure is a redirect, not a 500', async () => {
    const person = providerAccount({ email: 'audited-first@example.test', email_verified: true }, [
      'cc-finance',
    ]);
    const { stopped, browser } = await walkToCallback(t.url, idp, person.email);
    const append = vi
      .spyOn(t.audit, 'append')
      .mockRejectedValueOnce(new Error('audit trail unavailable'));
    try {
      const res = await t.ssoCallback(stopped, browser);
      expect(append).toHaveBeenCalledTimes(1);
      expect(res.status).toBe(302);
      expect(res.headers.location).toBe('/sign-in?sso=failed');
      expect(sessionCookie(res)).toBeUndefined();
    } finally {
      append.mockRestore();
    }
    // Nothing was left behind: a new sign-in works and is the only success recorded for them.
    expect((await signInAs(person)).headers.location).toBe('/cards');
    const { items } = await t.audit.list({
      limit: 10,
      filter: { actor: 'audited-first@example.test' },
    });
    expect(items.map((r) => r.outcome)).toEqual(['success']);
  });

  it('a provider error shaped like a card number: a redirect, audited with the number masked', async () => {
    const pan = testPan(11);
    for (const error of [
      pan,
      pan.replace(/(\d{4})(?=\d)/g, '$1.'),
      pan.replace(/(\d{4})(?=\d)/g, '$1_'),
    ]) {
      const { stopped, browser } = await walkToCallback(t.url, idp, 'sso-finance@example.test');
      const back = new URL(stopped.url);
      back.searchParams.delete('code');
      back.searchParams.set('error', error);
      const res = await t.ssoCallback({ url: back.toString() }, browser);
      expect(res.status).toBe(302);
      expect(res.headers.location).toBe('/sign-in?sso=failed');
      const record = await lastSignIn();
      expect(record).toMatchObject({
        outcome: 'failed',
        detail: expect.stringContaining('the provider answered'),
      });
      expect(JSON.stringify(record)).not.toMatch(new RegExp(pan.slice(0, 6)));
    }
  });
});
