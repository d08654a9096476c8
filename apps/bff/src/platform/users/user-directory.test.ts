import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { directoryOf } from '../../test/test-users';
import { demoScrypt, hashPassword, verifyPassword } from './password-hash';
import { readUsersFile, UserDirectory } from './user-directory';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'users-'));
});
afterEach(() => rm(dir, { recursive: true, force: true, maxRetries: 5 }));

async function usersFile(users: unknown): Promise<string> {
  const file = join(dir, 'users.json');
  await writeFile(file, JSON.stringify(users));
  return file;
}

describe('password hashes', () => {
  it('are scrypt with a random salt, encoded with their cost', async () => {
    const a = await hashPassword('secret words', demoScrypt);
    const b = await hashPassword('secret words', demoScrypt);
    expect(a).toMatch(/^scrypt\$16384\$8\$1\$[A-Za-z0-9_-]+\$[A-Za-z0-9_-]+$/);
    expect(a).not.toBe(b);
    expect(await verifyPassword('secret words', a)).toBe(true);
    expect(await verifyPassword('secret word', a)).toBe(false);
    expect(await verifyPassword('secret words', 'scrypt$garbage')).toBe(false);
  });
});

describe('the users file', () => {
  it('never accepts a demo account in production', async () => {
    const passwordHash = await hashPassword('demo-password', demoScrypt);
    const file = await usersFile([{ email: 'finance@demo.test', role: 'finance', passwordHash }]);
    await expect(UserDirectory.fromFile(file)).rejects.toThrow(/USERS_FILE: .*demo account/);
  });

  it('needs a TOTP secret for every admin', async () => {
    const passwordHash = await hashPassword('x', demoScrypt);
    const file = await usersFile([{ email: 'ada@example.com', role: 'admin', passwordHash }]);
    await expect(UserDirectory.fromFile(file)).rejects.toThrow(/totpSecret/);
  });

  it('refuses plain-text passwords, duplicates and unknown fields', async () => {
    const passwordHash = await hashPassword('x', demoScrypt);
    for (const users of [
      [{ email: 'a@example.com', role: 'finance', passwordHash: 'hunter2' }],
      [
        { email: 'a@example.com', role: 'finance', passwordHash },
        { email: 'A@example.com', role: 'finance', passwordHash },
      ],
      [{ email: 'a@example.com', role: 'finance', passwordHash, password: 'x' }],
    ]) {
      await expect(UserDirectory.fromFile(await usersFile(users))).rejects.toThrow(/USERS_FILE/);
    }
  });

  it('refuses a missing file with a message naming USERS_FILE', async () => {
    await expect(UserDirectory.fromFile(join(dir, 'none.json'))).rejects.toThrow(
      /^USERS_FILE: cannot read/,
    );
  });
});

describe('a disabled, removed or re-roled person', () => {
  const password = 'a long enough password';
  async function directory() {
    const passwordHash = await hashPassword(password, demoScrypt);
    return UserDirectory.fromFile(
      await usersFile([
        { email: 'pat@example.com', role: 'finance', passwordHash },
        { email: 'lee@example.com', role: 'finance', passwordHash, disabled: true },
      ]),
    );
  }

  it('cannot sign in even with the right password, and holds no session', async () => {
    const users = await directory();
    expect(await users.authenticate('lee@example.com', password)).toBeUndefined();
    expect(users.find('lee@example.com')?.disabled).toBe(true);
    expect(users.allowsSession({ email: 'lee@example.com', role: 'finance' })).toBe(false);
    expect(await users.authenticate('pat@example.com', password)).toBeDefined();
    expect(users.allowsSession({ email: 'pat@example.com', role: 'finance' })).toBe(true);
  });

  it('holds no session once replaced out of the directory, or with another role', async () => {
    const users = await directory();
    const pat = users.find('pat@example.com');
    if (!pat) throw new Error('pat is in the file');
    users.replaceUsers([{ ...pat, role: 'admin', totpSecret: 'A'.repeat(16) }]);
    expect(users.allowsSession({ email: 'pat@example.com', role: 'finance' })).toBe(false);
    expect(users.allowsSession({ email: 'pat@example.com', role: 'admin' })).toBe(true);
    users.replaceUsers([]);
    expect(users.allowsSession({ email: 'pat@example.com', role: 'admin' })).toBe(false);
    expect(users.counts()).toEqual({ users: 0, disabled: 0 });
  });

  it('is not among the emails a team alert goes to', async () => {
    const users = await directory();
    expect(users.emails()).toEqual(['pat@example.com']);
    users.replaceUsers([]);
    expect(users.emails()).toEqual([]);
  });
});

describe('reading a users file', () => {
  it('names USERS_FILE for text that is not JSON, without quoting any of it', async () => {
    const file = join(dir, 'broken.json');
    const secret = 'KRUGS4ZANFZSAYJAONSWG4TFOQ';
    await writeFile(file, `[{"totpSecret": "${secret}" oops`);
    const message = await readUsersFile(file).then(
      () => 'read',
      (error: Error) => error.message,
    );
    expect(message).toMatch(/^USERS_FILE: cannot read .* as JSON \(not valid JSON/);
    expect(message).not.toContain(secret);
    expect(message).not.toContain('oops');
  });
});

describe('sessions and single sign-on links', () => {
  const issuer = 'https://idp.example.test';
  const people = async () =>
    directoryOf([
      {
        email: 'ada@example.test',
        role: 'admin',
        passwordHash: 'x',
        sso: { issuer: `${issuer}/`, subject: 'sub-ada' },
      },
      { email: 'bo@example.test', role: 'finance', passwordHash: 'x' },
      { email: 'cy@example.test', role: 'finance', passwordHash: 'x', disabled: true },
    ]);

  it('finds a linked person by issuer (a trailing slash aside) and subject, and no one else', async () => {
    const users = await people();
    expect(users.findLinked(issuer, 'sub-ada')?.email).toBe('ada@example.test');
    expect(users.findLinked(`${issuer}//`, 'sub-ada')?.email).toBe('ada@example.test');
    expect(users.findLinked('https://other.example.test', 'sub-ada')).toBeUndefined();
    expect(users.findLinked(issuer, 'sub-bo')).toBeUndefined();
  });

  it('a password session goes on while its person is there, enabled and of that role', async () => {
    const users = await people();
    expect(users.allowsSession({ email: 'bo@example.test', role: 'finance' })).toBe(true);
    expect(users.allowsSession({ email: 'bo@example.test', role: 'admin' })).toBe(false);
    expect(users.allowsSession({ email: 'cy@example.test', role: 'finance' })).toBe(false);
    expect(users.allowsSession({ email: 'gone@example.test', role: 'finance' })).toBe(false);
  });

  it('a linked single sign-on session is vouched for like a password one, and by its subject', async () => {
    const users = await people();
    const session = {
      email: 'ada@example.test',
      role: 'admin' as const,
      method: 'sso' as const,
      sso: { sub: 'sub-ada', linked: true },
    };
    expect(users.allowsSession(session)).toBe(true);
    expect(users.allowsSession({ ...session, sso: { sub: 'sub-other', linked: true } })).toBe(
      false,
    );
    expect(users.allowsSession({ ...session, role: 'finance' })).toBe(false);
    // A password session of a linked person needs no subject.
    expect(users.allowsSession({ email: 'ada@example.test', role: 'admin' })).toBe(true);
  });

  it('an unlinked single sign-on session goes on only while no users-file person has its email', async () => {
    const users = await people();
    const sso = (email: string) => ({
      email,
      role: 'finance' as const,
      method: 'sso' as const,
      sso: { sub: 'sub-x' },
    });
    expect(users.allowsSession(sso('new@example.test'))).toBe(true);
    expect(users.allowsSession(sso('bo@example.test'))).toBe(false);
    expect(users.allowsSession(sso('cy@example.test'))).toBe(false);
  });
});
