// The users file changed while the BFF runs (production mode, the real app over HTTP, the
// file watched as index.ts watches it): additions sign in, and a disabled, removed or
// re-roled person's sessions stop working at their next request.
import { apiErrorBodySchema } from '@card-console/shared/api/error';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser } from '../../cli/add-user';
import { removeUser, setUserDisabled } from '../../cli/edit-users';
import { startTestApp, type TestApp } from '../../test/harness';
import { createLogger } from '../logger';
import { demoScrypt } from './password-hash';
import { type UsersFileWatcher, watchUsersFile } from './watch-users-file';

let t: TestApp;
let file: string;
let watcher: UsersFileWatcher;
const password = 'a long enough password';

beforeAll(async () => {
  t = await startTestApp({ mode: 'production', sim: { transactions: 20 } });
  file = t.usersFile ?? '';
  // The users file sits in the data directory, beside the audit trail written at each sign-in.
  watcher = watchUsersFile({ directory: t.users, file, logger: createLogger('silent') });
});
afterAll(async () => {
  watcher.close();
  await t.close();
});

let added = 0;
/** A finance person added to the file and seen by the running BFF. */
async function newPerson(): Promise<string> {
  const email = `person${++added}@example.test`;
  await addUser({ file, email, role: 'finance', password, scrypt: demoScrypt });
  await until(() => t.users.find(email) !== undefined, `${email} is loaded`);
  return email;
}

function signIn(email: string) {
  return t.request.post('/api/session').set(t.apiHeaders()).send({ email, password });
}

async function signedIn(email: string): Promise<string> {
  const res = await signIn(email);
  expect(res.status).toBe(200);
  const cookie = [res.headers['set-cookie']]
    .flat()
    .find((c) => c?.startsWith(`${t.config.cookie.name}=`));
  return cookie?.split(';')[0] ?? '';
}

const whoAmI = (cookie: string) =>
  t.request.get('/api/session').set(t.apiHeaders({ Cookie: cookie }));

/** Waits (a hang guard, not a timing bound) until `condition` holds. */
async function until(condition: () => boolean, what: string) {
  for (let i = 0; i < 500; i++) {
    if (condition()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`never happened: ${what}`);
}

describe('the users file changed while the BFF runs', () => {
  it('a person added with `pnpm users add` signs in without a restart', async () => {
    const email = `late@example.test`;
    expect((await signIn(email)).status).toBe(401);
    await addUser({ file, email, role: 'finance', password, scrypt: demoScrypt });
    await until(() => t.users.find(email) !== undefined, 'the new person is loaded');
    expect((await signIn(email)).status).toBe(200);
  });

  it('a disabled person cannot sign in, every session they hold ends at its next request, and enabling lets them in again', async () => {
    const email = await newPerson();
    // One after another: sign-ins at once would meet the per-account attempt limit.
    const cookies: string[] = [];
    for (let i = 0; i < 6; i++) cookies.push(await signedIn(email));
    expect((await whoAmI(cookies[0] ?? '')).status).toBe(200);

    await setUserDisabled({ file, email, disabled: true });
    await until(() => t.users.find(email)?.disabled === true, 'the person is disabled');

    // Every session at once, as tabs polling together would.
    const after = await Promise.all(cookies.map((cookie) => whoAmI(cookie)));
    expect(after.map((res) => res.status)).toEqual(cookies.map(() => 401));
    const refused = await signIn(email);
    expect(refused.status).toBe(401);
    expect(apiErrorBodySchema.parse(refused.body).code).toBe('invalid_credentials');
    const { items } = await t.audit.list({ limit: 20 });
    expect(items.find((record) => record.actor === email)).toMatchObject({
      action: 'session.signIn',
      outcome: 'failed',
      detail: 'account disabled',
    });

    await setUserDisabled({ file, email, disabled: false });
    await until(() => t.users.find(email)?.disabled !== true, 'the person is enabled');
    // An ended session stays ended; signing in again works.
    expect((await whoAmI(cookies[1] ?? '')).status).toBe(401);
    expect((await whoAmI(await signedIn(email))).status).toBe(200);
  });

  it('a removed person’s session ends at its next request', async () => {
    const email = await newPerson();
    const cookie = await signedIn(email);
    await removeUser({ file, email });
    await until(() => t.users.find(email) === undefined, 'the person is gone');
    expect((await whoAmI(cookie)).status).toBe(401);
    expect((await signIn(email)).status).toBe(401);
  });

  it('a person whose role changed signs in again to get it', async () => {
    const email = await newPerson();
    const cookie = await signedIn(email);
    await addUser({ file, email, role: 'admin', password, scrypt: demoScrypt });
    await until(() => t.users.find(email)?.role === 'admin', 'the new role is loaded');
    expect((await whoAmI(cookie)).status).toBe(401);
  });

  it('the other people’s sessions are untouched', async () => {
    const finance = await t.signIn('finance');
    const email = await newPerson();
    await setUserDisabled({ file, email, disabled: true });
    await until(() => t.users.find(email)?.disabled === true, 'the person is disabled');
    expect((await t.request.get('/api/session').set(finance.headers())).status).toBe(200);
  });
});
