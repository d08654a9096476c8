// A person removed from People takes their second factors with them: passkeys enrolled and an
// authenticator set up on Security are keyed by the email, and someone invited again with that
// email (or coming back through single sign-on) starts with none of them. Over HTTP on a whole
// app (createApp, as server.ts builds it) with the people store on the embedded engine and the
// second factors in their file, as one process keeps them.

import { mkdtemp, rm } from 'node:fs/promises';
import type http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { JsonlAuditStore } from '../../platform/audit/jsonl-audit-store';
import { FileFactorStore } from '../../platform/passkeys/file-factor-store';
import { MemorySessionStore } from '../../platform/sessions/session-store';
import { demoScrypt, hashPassword } from '../../platform/users/password-hash';
import type { Stores } from '../../stores';
import { ManualClock } from '../../test/manual-clock';
import {
  demoConfigIn,
  embeddedStoresFor,
  peopleDirectoryOf,
  peopleSessionsOf,
  servePeopleApp,
} from '../../test/people-whole-app';
import { readerChildren } from '../../test/reader-children';
import { pdfReceipt } from '../../test/receipt-files';
import { SoftwareAuthenticator } from '../../test/software-authenticator';
import { sessionCookieFrom } from '../../test/test-session';
import { totpCodeAt } from '../../test/totp-source';
import type { PeopleStore } from './people-store';

const PASSWORD = 'a long enough password';
const NEW_PASSWORD = 'another long password';
const ADMIN_SECRET = 'JBSWY3DPEHPK3PXQ';
const ADMIN = 'admin@example.test';
const enc = encodeURIComponent;

let dataDir: string;
let index: Stores;
let server: http.Server;
let api: ReturnType<typeof supertest>;
let origin: string;
let store: PeopleStore;
let factorStore: FileFactorStore;
const clock = new ManualClock();

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'bff-people-removal-'));
  const config = demoConfigIn(dataDir);
  origin = config.publicOrigin;
  index = embeddedStoresFor(config);
  store = await index.people();
  const sessions = peopleSessionsOf(index, clock, config);
  factorStore = await FileFactorStore.open(dataDir);
  ({ server, api } = await servePeopleApp({
    config,
    index,
    clock,
    auditDir: dataDir,
    sessionStore: new MemorySessionStore(clock),
    factorStore,
    sessions,
    users: await peopleDirectoryOf(index),
  }));
  const passwordHash = await hashPassword(PASSWORD, demoScrypt);
  await store.importUsers([
    { email: ADMIN, role: 'admin', passwordHash, totpSecret: ADMIN_SECRET },
  ]);
}, 60_000);

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  // The app's receipt reader (a child process, started by an upload) ends with it: none is left
  // for a later file in this worker to count.
  if (process.platform === 'linux') {
    await vi.waitFor(() => expect(readerChildren()).toEqual([]), { timeout: 10_000 });
  }
  await index?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true, maxRetries: 5 });
});

/** The records of `action` in the trail the app writes (DATA_DIR's audit file). */
async function auditOf(action: string) {
  const { items } = await new JsonlAuditStore(dataDir, clock).list({ limit: 1_000 });
  return items.filter((r) => r.action === action);
}

const headers = (cookie?: string) => ({
  'X-CSRF': '1',
  Origin: origin,
  ...(cookie ? { Cookie: cookie } : {}),
});

const cookieOf = (res: supertest.Response) => {
  const cookie = sessionCookieFrom(res, 'cc_session');
  if (!cookie) throw new Error(`no session cookie: ${res.status} ${JSON.stringify(res.body)}`);
  return cookie;
};

async function adminSession(): Promise<string> {
  clock.advance(30_000); // a code is good once per step
  const res = await api
    .post('/api/session')
    .set(headers())
    .send({ email: ADMIN, password: PASSWORD, totp: totpCodeAt(ADMIN_SECRET, clock.now()) });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return cookieOf(res);
}

/** Invites `email` as `role` and signs them up with `password`; an admin's with a new authenticator (its secret). */
async function inviteAndSignUp(email: string, role: 'admin' | 'finance', password: string) {
  const admin = await adminSession();
  const invited = await api
    .post('/api/people/invitations')
    .set(headers(admin))
    .send({ email, role });
  expect(invited.status, JSON.stringify(invited.body)).toBe(201);
  const token = new URL(invited.body.link).hash.slice(1);
  let secret: string | undefined;
  let totpCode: string | undefined;
  if (role === 'admin') {
    const made = await api.post('/api/invitations/authenticator').set(headers()).send({ token });
    expect(made.status).toBe(201);
    secret = made.body.secret as string;
    clock.advance(30_000);
    totpCode = totpCodeAt(secret, clock.now());
  }
  const accepted = await api
    .post('/api/invitations/accept')
    .set(headers())
    .send({ token, password, ...(totpCode ? { totpCode } : {}) });
  expect(accepted.status, JSON.stringify(accepted.body)).toBe(201);
  return { secret };
}

async function remove(email: string) {
  const admin = await adminSession();
  const res = await api.delete(`/api/people/${enc(email)}`).set(headers(admin));
  expect(res.status, JSON.stringify(res.body)).toBe(204);
}

/** Sets up an authenticator on Security (within 5 minutes of a password sign-in): its secret. */
async function ownAuthenticator(cookie: string): Promise<string> {
  const setup = await api.post('/api/second-factors/totp/setup').set(headers(cookie)).send({});
  expect(setup.status, JSON.stringify(setup.body)).toBe(200);
  const secret = setup.body.secret as string;
  clock.advance(30_000);
  const confirmed = await api
    .post('/api/second-factors/totp')
    .set(headers(cookie))
    .send({ code: totpCodeAt(secret, clock.now()) });
  expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
  return secret;
}

describe('a person removed, then invited again with the same email', () => {
  it('finance: the authenticator and passkey they had set up on Security are gone, not asked at sign-in', async () => {
    const email = 'fin@example.test';
    await inviteAndSignUp(email, 'finance', PASSWORD);
    const first = await api.post('/api/session').set(headers()).send({ email, password: PASSWORD });
    expect(first.status).toBe(200);
    const cookie = cookieOf(first);
    const oldSecret = await ownAuthenticator(cookie);
    clock.advance(30_000);
    const stepped = await api
      .post('/api/session/step-up')
      .set(headers(cookie))
      .send({ totp: totpCodeAt(oldSecret, clock.now()) });
    expect(stepped.status, JSON.stringify(stepped.body)).toBe(200);
    const cookie2 = sessionCookieFrom(stepped, 'cc_session') ?? cookie;
    const authenticator = new SoftwareAuthenticator();
    const options = await api
      .post('/api/passkeys/registration-options')
      .set(headers(cookie2))
      .send({});
    const response = authenticator.create(options.body, origin);
    const added = await api
      .post('/api/passkeys')
      .set(headers(cookie2))
      .send({ name: 'Old laptop', response });
    expect(added.status, JSON.stringify(added.body)).toBe(201);

    await remove(email);
    await inviteAndSignUp(email, 'finance', NEW_PASSWORD);

    const again = await api
      .post('/api/session')
      .set(headers())
      .send({ email, password: NEW_PASSWORD });
    // The new person has no second factor: signed in with the password. (The old code answered
    // 401 second_factor_required, offering the removed person's passkey and authenticator.)
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    const factors = await api.get('/api/second-factors').set(headers(cookieOf(again)));
    expect(factors.body).toEqual({ passkeys: [], totp: { available: false, enabled: false } });
    expect(await factorStore.get(email)).toEqual({ passkeys: [], totpDisabled: false });
  });

  it("admin: the new invitation's authenticator signs in, the removed person's own one does not", async () => {
    const email = 'second-admin@example.test';
    const { secret: invited } = await inviteAndSignUp(email, 'admin', PASSWORD);
    clock.advance(30_000);
    const signedIn = await api
      .post('/api/session')
      .set(headers())
      .send({ email, password: PASSWORD, totp: totpCodeAt(invited as string, clock.now()) });
    expect(signedIn.status, JSON.stringify(signedIn.body)).toBe(200);
    // They replace it on Security (their sign-in with a code counts as a step-up).
    const replaced = await ownAuthenticator(cookieOf(signedIn));

    await remove(email);
    const { secret: again } = await inviteAndSignUp(email, 'admin', NEW_PASSWORD);

    clock.advance(30_000);
    const withOld = await api
      .post('/api/session')
      .set(headers())
      .send({ email, password: NEW_PASSWORD, totp: totpCodeAt(replaced, clock.now()) });
    expect(withOld.status).toBe(401);
    expect(withOld.body.code).toBe('invalid_credentials');
    clock.advance(30_000);
    const withNew = await api
      .post('/api/session')
      .set(headers())
      .send({ email, password: NEW_PASSWORD, totp: totpCodeAt(again as string, clock.now()) });
    // The old code refused the invitation's new authenticator (the removed person's own secret
    // was still the one checked) and took the old one.
    expect(withNew.status, JSON.stringify(withNew.body)).toBe(200);
  });

  it('their receipt inbox, forwarding address and own alert rules go with them, and the record says so', async () => {
    const email = 'inbox@example.test';
    await inviteAndSignUp(email, 'finance', PASSWORD);
    const first = await api.post('/api/session').set(headers()).send({ email, password: PASSWORD });
    const cookie = cookieOf(first);
    const uploaded = await api
      .post('/api/receipt-inbox')
      .set(headers(cookie))
      .set('content-type', 'application/octet-stream')
      .set('x-file-name', 'lunch.pdf')
      .send(pdfReceipt());
    expect(uploaded.status, JSON.stringify(uploaded.body)).toBe(201);
    const rule = await api
      .post('/api/alerts/rules')
      .set(headers(cookie))
      .send({ kind: 'declined', name: 'My declines', channels: { inbox: true, email: false } });
    expect(rule.status, JSON.stringify(rule.body)).toBe(201);
    const inbox = await index.receiptInbox();
    const oldSecret = await inbox.forwardingSecret(
      email,
      () => 'the-removed-persons-secret',
      new Date(),
    );

    await remove(email);
    const [record] = (await auditOf('person.remove')).filter((r) => r.target === email);
    expect(record?.detail).toBe(
      'removed (was finance); with them: 1 receipt in their inbox, not attached, their receipt forwarding address, 1 alert rule',
    );
    // The address the removed person knows names nobody now: their mail is refused.
    expect(await inbox.ownerOfSecret(oldSecret)).toBeUndefined();

    await inviteAndSignUp(email, 'finance', NEW_PASSWORD);
    const again = cookieOf(
      await api.post('/api/session').set(headers()).send({ email, password: NEW_PASSWORD }),
    );
    const items = await api.get('/api/receipt-inbox').set(headers(again));
    expect(items.status).toBe(200);
    expect(items.body.items).toEqual([]);
    const rules = await api.get('/api/alerts/rules').set(headers(again));
    expect(rules.body.rules ?? rules.body.items ?? rules.body).toEqual([]);
    expect(await inbox.forwardingSecret(email, () => 'a-new-secret', new Date())).toBe(
      'a-new-secret',
    );
  });

  it('what another replica took from them after the removal is dropped at the next invitation, recorded', async () => {
    const email = 'late-upload@example.test';
    await inviteAndSignUp(email, 'finance', PASSWORD);
    await remove(email);
    // Another replica still knew them for a few seconds (the documented window): an upload
    // landed under the email after the removal's drops had run.
    const inbox = await index.receiptInbox();
    await inbox.receive(
      email,
      { fileName: 'late.pdf', mediaType: 'application/pdf', content: pdfReceipt('late') },
      'upload',
      new Date(),
    );
    await inviteAndSignUp(email, 'finance', NEW_PASSWORD);
    const records = (await auditOf('person.remove')).filter((r) => r.target === email);
    // Newest first.
    expect(records.map((r) => r.detail)).toEqual([
      'dropped what was left under the email after the removal: 1 receipt in their inbox, not attached',
      'removed (was finance)',
    ]);
    const again = cookieOf(
      await api.post('/api/session').set(headers()).send({ email, password: NEW_PASSWORD }),
    );
    expect((await api.get('/api/receipt-inbox').set(headers(again))).body.items).toEqual([]);
  });

  it('factors left under an email nobody has (their drop failed) are dropped when it is invited', async () => {
    const email = 'left-behind@example.test';
    expect(
      await factorStore.addPasskey(email, {
        id: 'left-behind-credential',
        publicKey: 'pQECAyYgASFYIMp-xGa_7vM1bXkM2PbTq0aUb5eR2E6a3WfP7c6dVg0sIlggWkZ',
        counter: 0,
        name: 'Not theirs',
        createdAt: clock.now(),
      }),
    ).toBe('added');
    await inviteAndSignUp(email, 'finance', PASSWORD);
    const res = await api.post('/api/session').set(headers()).send({ email, password: PASSWORD });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await factorStore.get(email)).passkeys).toEqual([]);
  });
});
