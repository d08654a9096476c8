// The watcher on a real file in a real directory: changes written the way `pnpm users` and
// editors write them, read back through the directory the BFF signs people in with.
import { EventEmitter } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addUser } from '../../cli/add-user';
import { setUserDisabled } from '../../cli/edit-users';
import { lineSink } from '../../test/capture';
import { createLogger } from '../logger';
import { demoScrypt } from './password-hash';
import { UserDirectory } from './user-directory';
import { type UsersFileWatcher, watchUsersFile } from './watch-users-file';

const password = 'a long enough password';
let dir: string;
let file: string;
let logs: string[];
let directory: UserDirectory;
let watcher: UsersFileWatcher | undefined;
let signals: EventEmitter;

const add = (email: string) =>
  addUser({ file, email, role: 'finance', password, scrypt: demoScrypt });

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'users-watch-'));
  file = join(dir, 'users.json');
  logs = [];
  signals = new EventEmitter();
  await add('pat@example.com');
  directory = await UserDirectory.fromFile(file);
});
afterEach(async () => {
  watcher?.close();
  watcher = undefined;
  await rm(dir, { recursive: true, force: true, maxRetries: 5 });
});

function watch(debounceMs = 20) {
  const logger = createLogger('info', lineSink(logs));
  watcher = watchUsersFile({ directory, file, logger, debounceMs, signals });
  return watcher;
}

/** Waits (a hang guard, not a timing bound) until `condition` holds. */
async function until(condition: () => boolean, what: string) {
  for (let i = 0; i < 500; i++) {
    if (condition()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`never happened: ${what}\n${logs.join('\n')}`);
}

const lines = (msg: RegExp) =>
  logs.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => msg.test(`${l.msg}`));

describe('watchUsersFile', () => {
  it('a person added with `pnpm users add` is in the directory without a restart', async () => {
    watch();
    expect(directory.find('new@example.com')).toBeUndefined();
    await add('new@example.com');
    await until(() => directory.find('new@example.com') !== undefined, 'the new person appears');
    expect(await directory.authenticate('new@example.com', password)).toBeDefined();
    expect(lines(/^users file reloaded$/).at(-1)).toMatchObject({ users: 2, disabled: 0 });
  });

  it('a person disabled in the file can no longer sign in or keep a session', async () => {
    watch();
    await setUserDisabled({ file, email: 'pat@example.com', disabled: true });
    await until(() => directory.find('pat@example.com')?.disabled === true, 'pat is disabled');
    expect(await directory.authenticate('pat@example.com', password)).toBeUndefined();
    expect(directory.allowsSession({ email: 'pat@example.com', role: 'finance' })).toBe(false);
  });

  it('a file that fails to parse keeps the last good users, logs an error without its content, then a fixed one is read', async () => {
    watch();
    const good = await readFile(file, 'utf8');
    const secret = 'KRUGS4ZANFZSAYJAONSWG4TFOQ';
    await writeFile(file, `[{"email": "pat@example.com", "totpSecret": "${secret}"`);
    await until(() => lines(/not reloaded/).length > 0, 'the error is logged');
    expect(lines(/not reloaded/)[0]).toMatchObject({ level: 50, file });
    expect(logs.join('\n')).not.toContain(secret);
    expect(await directory.authenticate('pat@example.com', password)).toBeDefined();

    await writeFile(file, JSON.stringify([{ email: 'x@example.com', role: 'finance' }]));
    await until(() => lines(/not reloaded/).length > 1, 'the second error is logged');
    expect(lines(/not reloaded/)[1]?.reason).toMatch(/^USERS_FILE: 0\.passwordHash/);
    expect(directory.find('pat@example.com')).toBeDefined();

    await writeFile(file, good);
    await add('new@example.com');
    await until(() => directory.find('new@example.com') !== undefined, 'the fixed file is read');
  });

  it('a removed file keeps the last good users and says it cannot be read', async () => {
    watch();
    await rm(file);
    await until(() => lines(/cannot read it/).length > 0, 'the error is logged');
    expect(lines(/cannot read it/)[0]).toMatchObject({ level: 50, code: 'ENOENT' });
    expect(directory.find('pat@example.com')).toBeDefined();
  });

  it('SIGHUP reloads at once, whatever the quiet time before a change is read', async () => {
    watch(60 * 60_000);
    await add('new@example.com');
    expect(directory.find('new@example.com')).toBeUndefined();
    signals.emit('SIGHUP');
    await until(() => directory.find('new@example.com') !== undefined, 'SIGHUP reloaded');
    expect(lines(/^SIGHUP: reloading the users file$/)).toHaveLength(1);
  });

  it('many changes at once end with the last file in place', async () => {
    watch();
    const emails = Array.from({ length: 8 }, (_, i) => `p${i}@example.com`);
    // One writer after another, as `pnpm users add` run in a loop would; the watcher sees a
    // burst of renames while reads of earlier versions may still be under way.
    for (const email of emails) await add(email);
    await until(() => emails.every((e) => directory.find(e)), 'every person is in');
    expect(directory.counts()).toEqual({ users: 9, disabled: 0 });
  });

  it('after close, SIGHUP is no longer listened to', () => {
    const w = watch();
    expect(signals.listenerCount('SIGHUP')).toBe(1);
    w.close();
    expect(signals.listenerCount('SIGHUP')).toBe(0);
  });
});
