// Single sign-on against a real OpenID Provider (oidc-provider) over real HTTP: the BFF's
// start, the provider's own sign-in form, the redirect back, the ID token checked by
// openid-client. Nothing here is a made-up token: the refusals are real tokens or codes used
// where they must not work.
import type { AuditRecord } from '@card-console/shared/api/audit';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp } from '../../test/harness';
import { SsoBrowser } from '../../test/sso-browser';
import {
  ssoPeople,
  startTestIdentityProvider,
  type TestIdentityProvider,
  walkToCallback,
} from '../../test/test-identity-provider';

let idp: TestIdentityProvider;
let t: TestApp;
const publicOrigin = 'http://localhost:3000'; // the demo config's; the harness listens elsewhere

beforeAll(async () => {
  idp = await startTestIdentityProvider(publicOrigin);
  t = await startTestApp({ sim: { transactions: 50 }, identityProvider: idp });
});
afterAll(async () => {
  await t?.close();
  await idp?.close();
});

/** The provider's redirect back, as a browser sends it: the Lax binding cookie only. */
function callback(url: string, browser: SsoBrowser) {
  const back = new URL(url);
  const binding = browser
    .cookieHeader(t.url)
    .split('; ')
    .filter((pair) => pair.startsWith('cc_sso='))
    .join('; ');
  return t.request.get(`${back.pathname}${back.search}`).set('Cookie', binding);
}

async function lastAudit(action: AuditRecord['action']): Promise<AuditRecord | undefined> {
  const { items } = await t.audit.list({ limit: 50, filter: { action } });
  return items[0];
}

const sessionCookie = (res: { headers: Record<string, unknown> }) =>
  ([] as string[])
    .concat((res.headers['set-cookie'] as string[] | undefined) ?? [])
    .find((line) => line.startsWith('cc_session=') && !line.startsWith('cc_session=;'));

describe('single sign-on', () => {
  it('signs a person in: a fresh session of the mapped role, method sso, audited', async () => {
    const person = ssoPeople.finance;
    const { stopped, browser } = await walkToCallback(t.url, idp, person.email);
    expect(stopped.url.startsWith(`${publicOrigin}/api/sso/callback?`)).toBe(true);
    const res = await callback(stopped.url, browser);
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('/cards');
    const cookie = sessionCookie(res)?.split(';')[0];
    expect(cookie).toBeDefined();
    const me = await t.request.get('/api/session').set(t.apiHeaders({ Cookie: cookie ?? '' }));
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      email: person.email,
      role: 'finance',
      method: 'sso',
      // A fresh sign-in at the provider confirms it is them (before adding a passkey).
      stepUpMethods: ['provider'],
    });
    // Not in the users file, and still signed in on the next request (the directory vouches
    // for password sessions only).
    const cards = await t.request.get('/api/cards').set(t.apiHeaders({ Cookie: cookie ?? '' }));
    expect(cards.status).toBe(200);
    expect(await lastAudit('session.signIn')).toMatchObject({
      actor: person.email,
      role: 'finance',
      outcome: 'success',
      method: 'sso',
    });
  });

  it('a callback with another state is refused: no session, logged (not audited: anyone can send it)', async () => {
    const { stopped, browser } = await walkToCallback(t.url, idp, ssoPeople.finance.email);
    const forged = new URL(stopped.url);
    forged.searchParams.set('state', `${forged.searchParams.get('state')}x`);
    const before = await lastAudit('session.signIn');
    const logs = t.logs.length;
    const res = await callback(forged.toString(), browser);
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('/sign-in?sso=failed');
    expect(sessionCookie(res)).toBeUndefined();
    expect(await lastAudit('session.signIn')).toEqual(before);
    await vi.waitFor(() =>
      expect(t.logs.slice(logs).join('\n')).toContain('matched no sign-in in progress'),
    );
    // The real state still works once: the forged one did not use it up.
    expect((await callback(stopped.url, browser)).headers.location).toBe('/cards');
  });

  it('a callback without the browser’s binding cookie is refused (another browser)', async () => {
    const { stopped } = await walkToCallback(t.url, idp, ssoPeople.finance.email);
    const res = await callback(stopped.url, new SsoBrowser());
    expect(res.headers.location).toBe('/sign-in?sso=failed');
    expect(sessionCookie(res)).toBeUndefined();
  });

  it('a code is good once: the same callback again, or the code under a new state, is refused', async () => {
    const { stopped, browser } = await walkToCallback(t.url, idp, ssoPeople.finance.email);
    expect((await callback(stopped.url, browser)).headers.location).toBe('/cards');
    // The same redirect again: its pending sign-in was used up.
    const again = await callback(stopped.url, browser);
    expect(again.headers.location).toBe('/sign-in?sso=failed');
    expect(sessionCookie(again)).toBeUndefined();
    // The old code carried into a new sign-in (its own state): the provider refuses it.
    const second = await walkToCallback(t.url, idp, ssoPeople.finance.email);
    const replay = new URL(second.stopped.url);
    replay.searchParams.set('code', new URL(stopped.url).searchParams.get('code') ?? '');
    const refused = await callback(replay.toString(), second.browser);
    expect(refused.headers.location).toBe('/sign-in?sso=failed');
    expect(sessionCookie(refused)).toBeUndefined();
    expect(await lastAudit('session.signIn')).toMatchObject({
      outcome: 'failed',
      detail: expect.stringMatching(/refused/),
    });
  });

  it('an ID token with another nonce is refused', async () => {
    const { stopped, browser } = await walkToCallback(t.url, idp, ssoPeople.finance.email, {
      tamper: (url) => url.searchParams.set('nonce', 'a-nonce-the-console-never-made'),
    });
    const res = await callback(stopped.url, browser);
    expect(res.headers.location).toBe('/sign-in?sso=failed');
    expect(sessionCookie(res)).toBeUndefined();
    expect(await lastAudit('session.signIn')).toMatchObject({
      outcome: 'failed',
      detail: expect.stringContaining('nonce'),
    });
  });

  it('a person whose groups map to no role gets the no-access page and no session, audited', async () => {
    const person = idp.people.get(ssoPeople.finance.email);
    if (!person) throw new Error('no such person');
    const groups = person.groups;
    person.groups = ['sales'];
    try {
      const { stopped, browser } = await walkToCallback(t.url, idp, person.email);
      const res = await callback(stopped.url, browser);
      expect(res.headers.location).toBe('/no-access');
      expect(sessionCookie(res)).toBeUndefined();
      expect(await lastAudit('session.signIn')).toMatchObject({
        actor: person.email,
        outcome: 'failed',
        method: 'sso',
        detail: 'no mapped role',
      });
    } finally {
      person.groups = groups;
    }
  });

  it('a role changed at the provider takes effect at the next sign-in', async () => {
    const person = idp.people.get(ssoPeople.finance.email);
    if (!person) throw new Error('no such person');
    const first = await walkToCallback(t.url, idp, person.email);
    const before = sessionCookie(await callback(first.stopped.url, first.browser))?.split(';')[0];
    person.groups = ['cc-admins'];
    try {
      const still = await t.request.get('/api/session').set(t.apiHeaders({ Cookie: before ?? '' }));
      expect(still.body.role).toBe('finance');
      const next = await walkToCallback(t.url, idp, person.email);
      const after = sessionCookie(await callback(next.stopped.url, next.browser))?.split(';')[0];
      const me = await t.request.get('/api/session').set(t.apiHeaders({ Cookie: after ?? '' }));
      expect(me.body).toMatchObject({ role: 'admin', stepUpMethods: ['provider'] });
    } finally {
      person.groups = ['cc-finance'];
    }
  });

  it('an admin’s step-up is a fresh sign-in at the provider (max_age=0), then a reveal works', async () => {
    const admin = ssoPeople.admin;
    const first = await walkToCallback(t.url, idp, admin.email);
    const res = await callback(first.stopped.url, first.browser);
    let cookie = sessionCookie(res)?.split(';')[0] ?? '';
    const card = t.sim.data.cards()[0];
    const reveal = () =>
      t.request
        .post(`/api/cards/${card?.id}/reveal`)
        .set(t.apiHeaders({ Cookie: cookie }))
        .send({ reason: 'checking a charge' });
    const refused = await reveal();
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({
      code: 'step_up_required',
      secondFactor: { methods: ['provider'] },
    });

    const again = await walkToCallback(t.url, idp, admin.email, {
      browser: first.browser,
      path: '/api/sso/step-up?returnTo=%2Fcards%2Fx',
      cookie,
    });
    const authorization = again.login.visited[0] ?? '';
    expect(new URL(authorization).searchParams.get('max_age')).toBe('0');
    // The provider asked for the password again although its own session was live.
    expect(again.login.body).toContain('type="password"');
    const back = await callback(again.stopped.url, again.browser);
    expect(back.status).toBe(302);
    expect(back.headers.location).toBe('/cards/x');
    const rotated = sessionCookie(back)?.split(';')[0];
    expect(rotated).toBeDefined();
    expect(rotated).not.toBe(cookie);
    // The old id works for 10 s as it was (reads on their way), then dies with the rotation.
    const old = () => t.request.get('/api/session').set(t.apiHeaders({ Cookie: cookie }));
    const late = await old();
    expect(late.status).toBe(200);
    expect(late.body.stepUpUntil).toBeUndefined();
    t.clock.advance(10_000);
    expect((await old()).status).toBe(401);
    cookie = rotated ?? '';
    expect((await reveal()).status).toBe(200);
    expect(await lastAudit('session.stepUp')).toMatchObject({
      actor: admin.email,
      outcome: 'success',
      method: 'provider',
    });
  });

  it('a step-up where someone else signs in at the provider is refused', async () => {
    const admin = ssoPeople.admin;
    const first = await walkToCallback(t.url, idp, admin.email);
    const cookie = sessionCookie(await callback(first.stopped.url, first.browser))?.split(';')[0];
    // Another browser at the provider (no provider session), the admin's console session.
    const other = await walkToCallback(t.url, idp, ssoPeople.finance.email, {
      path: '/api/sso/step-up?returnTo=%2Fcards',
      cookie: cookie ?? '',
    });
    const back = await callback(other.stopped.url, other.browser);
    expect(back.headers.location).toBe('/cards?stepUp=failed');
    expect(sessionCookie(back)).toBeUndefined();
    const me = await t.request.get('/api/session').set(t.apiHeaders({ Cookie: cookie ?? '' }));
    expect(me.body.stepUpUntil).toBeUndefined();
    expect(await lastAudit('session.stepUp')).toMatchObject({
      outcome: 'failed',
      method: 'provider',
      detail: expect.stringContaining('another person'),
    });
  });

  it('sign-out ends the console session and hands back the provider’s logout', async () => {
    const { stopped, browser } = await walkToCallback(t.url, idp, ssoPeople.finance.email);
    const cookie = sessionCookie(await callback(stopped.url, browser))?.split(';')[0] ?? '';
    const out = await t.request.delete('/api/session').set(t.apiHeaders({ Cookie: cookie }));
    expect(out.status).toBe(200);
    const logout = new URL(out.body.providerLogoutUrl);
    expect(logout.origin).toBe(idp.issuer);
    expect(logout.searchParams.get('post_logout_redirect_uri')).toBe(`${publicOrigin}/sign-in`);
    expect(logout.searchParams.get('id_token_hint')).toBeTruthy();
    expect((await t.request.get('/api/session').set(t.apiHeaders({ Cookie: cookie }))).status).toBe(
      401,
    );
    // At the provider: confirm, and land back on the console's sign-in page.
    const confirm = await browser.follow(logout);
    const done = await browser.submitFormUntil(confirm, `${publicOrigin}/sign-in`, {
      button: 'Sign out',
    });
    expect(done.url).toBe(`${publicOrigin}/sign-in`);
    // The provider's session is over: the next sign-in asks for the password again.
    const next = await walkToCallback(t.url, idp, ssoPeople.finance.email, { browser });
    expect(next.login.body).toContain('type="password"');
  });
});

describe('single sign-on with a provider that issues expired ID tokens', () => {
  let expiring: TestIdentityProvider;
  let app: TestApp;
  beforeAll(async () => {
    // The real provider signs a token whose exp is two minutes before its iat.
    expiring = await startTestIdentityProvider(publicOrigin, { idTokenTtlSeconds: () => -120 });
    app = await startTestApp({ sim: { transactions: 10 }, identityProvider: expiring });
  });
  afterAll(async () => {
    await app?.close();
    await expiring?.close();
  });

  it('refuses the expired ID token: no session, the failure audited with the reason', async () => {
    const { stopped, browser } = await walkToCallback(app.url, expiring, ssoPeople.finance.email);
    const back = new URL(stopped.url);
    const binding = browser
      .cookieHeader(app.url)
      .split('; ')
      .filter((pair) => pair.startsWith('cc_sso='))
      .join('; ');
    const res = await app.request.get(`${back.pathname}${back.search}`).set('Cookie', binding);
    expect(res.headers.location).toBe('/sign-in?sso=failed');
    expect(sessionCookie(res)).toBeUndefined();
    const { items } = await app.audit.list({ limit: 1 });
    expect(items[0]).toMatchObject({
      action: 'session.signIn',
      outcome: 'failed',
      detail: expect.stringContaining('"exp"'),
    });
  });
});
