// An invitee's authenticator over HTTP: the server makes the secret (160 random bits), shows it
// once bound to the invitation, and the sign-up takes codes of that secret only. A secret the
// browser sends is refused, the public demo secret above all; the secret is kept sealed.
import type { AuditRecord } from '@card-console/shared/api/audit';
import { apiErrorBodySchema } from '@card-console/shared/api/error';
import {
  invitationAuthenticatorSchema,
  invitationCreatedSchema,
} from '@card-console/shared/api/people';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { SqlEngine } from '../../platform/sql/sql-engine';
import { migratedMemoryEngine } from '../../test/engines/embedded';
import { ManualClock } from '../../test/manual-clock';
import { type PeopleTestApp, startPeopleApp, type TestCookie } from '../../test/people-test-app';
import { testTotpSecrets } from '../../test/totp-keys';
import { totpCodeAt } from '../../test/totp-source';
import { PeopleStore } from './people-store';
import { emptyPeople, fileUser } from './people-store.contract';

const ANA = 'ana@example.test';
const NEW = 'new@example.test';
const PASSWORD = 'a long enough password';
/** The demo admin's secret, printed in the docs and on the demo's sign-in page. */
const PUBLIC_DEMO_SECRET = 'JBSWY3DPEHPK3PXP';
const STEP = 30_000;

let engine: SqlEngine;
let clock: ManualClock;
let store: PeopleStore;
let t: PeopleTestApp;
let ana: TestCookie;

beforeAll(async () => {
  engine = await migratedMemoryEngine();
});
afterAll(() => engine.close());

beforeEach(async () => {
  await emptyPeople(engine);
  clock = new ManualClock();
  store = new PeopleStore(engine, clock, testTotpSecrets());
  await store.importUsers([await fileUser(ANA, 'admin')]);
  t = await startPeopleApp({ store, clock });
  ana = await t.signIn(ANA, 'admin');
});
afterEach(() => t.close());

const problem = (body: unknown) => apiErrorBodySchema.parse(body);

async function invite(role: 'admin' | 'finance' = 'admin'): Promise<string> {
  const res = await t.request
    .post('/api/people/invitations')
    .set(t.headers(ana))
    .send({ email: NEW, role });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return invitationCreatedSchema.parse(res.body).link.split('#')[1] as string;
}

const authenticator = (token: string) =>
  t.request.post('/api/invitations/authenticator').set(t.headers()).send({ token });

const accept = (body: Record<string, unknown>) =>
  t.request.post('/api/invitations/accept').set(t.headers()).send(body);

/** A code of `secret` no other step's code equals: wrong for any other secret too. */
const codeOf = (secret: string) => totpCodeAt(secret, clock.now());
const notCodeOf = (secret: string) => (codeOf(secret) === '000000' ? '111111' : '000000');

async function signUps(): Promise<[string, string, string | undefined][]> {
  const { items } = await t.audit.list({ limit: 100, filter: { action: 'person.signUp' } });
  return items.reverse().map((r: AuditRecord) => [r.actor, r.outcome, r.detail]);
}

describe("an invitee's authenticator", () => {
  it('is made by the server, shown once as a key and an otpauth address, and its code signs the admin up', async () => {
    const token = await invite();
    const made = await authenticator(token);
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.headers['cache-control']).toBe('no-store');
    const { secret, otpauthUri } = invitationAuthenticatorSchema.parse(made.body);
    // 160 random bits, base32.
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    const uri = new URL(otpauthUri);
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.searchParams.get('secret')).toBe(secret);
    expect(uri.searchParams.get('issuer')).toBe('Card Console');
    expect(decodeURIComponent(uri.pathname)).toContain(NEW);

    const without = await accept({ token, password: PASSWORD });
    expect(without.status).toBe(400);
    expect(problem(without.body).code).toBe('invalid_body');
    expect(problem(without.body).detail).toMatch(/authenticator/);
    const wrong = await accept({ token, password: PASSWORD, totpCode: notCodeOf(secret) });
    expect(wrong.status).toBe(400);
    expect(problem(wrong.body).code).toBe('invalid_totp');
    expect((await store.find(NEW))?.pending).toBe(true);

    const ok = await accept({ token, password: PASSWORD, totpCode: codeOf(secret) });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(await store.find(NEW)).toMatchObject({ pending: false, totpSecret: secret });
    const [row] = await engine.query<{ totp_secret: string }>(
      'SELECT totp_secret FROM person WHERE email = $1',
      [NEW],
    );
    expect(row?.totp_secret).toMatch(/^v1:/);
    expect(row?.totp_secret).not.toContain(secret);
    expect(await signUps()).toEqual([
      [NEW, 'denied', 'invalid_body'],
      [NEW, 'denied', 'invalid_totp'],
      [NEW, 'success', 'signed up with an authenticator'],
    ]);
    // Used: no new secret for it.
    const after = await authenticator(token);
    expect(after.status).toBe(410);
    expect(problem(after.body).code).toBe('invitation_used');
  });

  it('refuses a secret the browser sends, the public demo secret above all, even with its current code', async () => {
    const token = await invite();
    await authenticator(token);
    for (const totpSecret of [PUBLIC_DEMO_SECRET, 'KRUGS4ZANFZSAYJAONSWG4TFOQQGC3TE']) {
      const sent = await accept({
        token,
        password: PASSWORD,
        totpSecret,
        totpCode: codeOf(totpSecret),
      });
      expect(sent.status, totpSecret).toBe(400);
      expect(problem(sent.body).code).toBe('invalid_body');
      expect(problem(sent.body).detail).toMatch(/the server makes the authenticator secret/);
    }
    // Nor does a code of that secret pass for the one the server made.
    const demoCode = await accept({
      token,
      password: PASSWORD,
      totpCode: codeOf(PUBLIC_DEMO_SECRET),
    });
    expect(demoCode.status).toBe(400);
    expect(problem(demoCode.body).code).toBe('invalid_totp');
    expect(await store.find(NEW)).toMatchObject({ pending: true, hasTotp: false });
  });

  it('asked again, a new secret replaces the first: only the newest one signs up', async () => {
    const token = await invite();
    const first = invitationAuthenticatorSchema.parse((await authenticator(token)).body).secret;
    const second = invitationAuthenticatorSchema.parse((await authenticator(token)).body).secret;
    expect(second).not.toBe(first);
    const old = await accept({ token, password: PASSWORD, totpCode: codeOf(first) });
    expect(old.status).toBe(400);
    expect(problem(old.body).code).toBe('invalid_totp');
    clock.advance(STEP);
    const ok = await accept({ token, password: PASSWORD, totpCode: codeOf(second) });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect((await store.find(NEW))?.totpSecret).toBe(second);
  });

  it('a code before any secret was made is refused, saying to set the authenticator up first', async () => {
    const token = await invite();
    const early = await accept({ token, password: PASSWORD, totpCode: '123456' });
    expect(early.status).toBe(400);
    expect(problem(early.body).code).toBe('invalid_body');
    expect(problem(early.body).detail).toMatch(/Set up the authenticator first/);
    expect((await store.find(NEW))?.pending).toBe(true);
  });

  it('someone from finance may enrol one too, or sign up without', async () => {
    const token = await invite('finance');
    const { secret } = invitationAuthenticatorSchema.parse((await authenticator(token)).body);
    const ok = await accept({ token, password: PASSWORD, totpCode: codeOf(secret) });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(await store.find(NEW)).toMatchObject({ role: 'finance', totpSecret: secret });
  });

  it('is refused for a link that cannot be used (404, 400, 410), counted against the address (429)', async () => {
    await t.close();
    t = await startPeopleApp({ store, clock, rateLimits: { signInFailuresPerAddress: 3 } });
    ana = await t.signIn(ANA, 'admin');
    const token = await invite();
    const unknown = await authenticator('B'.repeat(43));
    expect(unknown.status).toBe(404);
    expect(problem(unknown.body).code).toBe('not_found');
    const malformed = await authenticator('short');
    expect(malformed.status).toBe(400);
    const extra = await t.request
      .post('/api/invitations/authenticator')
      .set(t.headers())
      .send({ token, secret: PUBLIC_DEMO_SECRET });
    expect(extra.status).toBe(400);
    await invite();
    const replaced = await authenticator(token);
    expect(replaced.status).toBe(410);
    expect(problem(replaced.body).code).toBe('invitation_revoked');
    // Three refusals held their points (the malformed bodies never reached the count)…
    const limited = await authenticator('C'.repeat(43));
    expect(limited.status).toBe(404);
    const last = await authenticator('D'.repeat(43));
    expect(last.status).toBe(429);
    expect(problem(last.body).code).toBe('rate_limited');
  });
});
