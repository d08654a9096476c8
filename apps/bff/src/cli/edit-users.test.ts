import { chown, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { demoScrypt } from '../platform/users/password-hash';
import { UserDirectory } from '../platform/users/user-directory';
import { addUser } from './add-user';
import { linkUser, removeUser, setUserDisabled, unlinkUser } from './edit-users';

let dir: string;
let file: string;
const password = 'a long enough password';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'users-edit-'));
  file = join(dir, 'users.json');
  for (const email of ['pat@example.com', 'lee@example.com']) {
    await addUser({ file, email, role: 'finance', password, scrypt: demoScrypt });
  }
});
afterEach(() => rm(dir, { recursive: true, force: true, maxRetries: 5 }));

const entries = async () =>
  JSON.parse(await readFile(file, 'utf8')) as { email: string; disabled?: boolean }[];

describe('pnpm users remove / disable / enable (core)', () => {
  it('removes a person, whatever the case of the email typed, keeping the file 0600', async () => {
    await removeUser({ file, email: ' Pat@Example.com ' });
    expect((await entries()).map((u) => u.email)).toEqual(['lee@example.com']);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('keeps the file’s owner and group when it rewrites it (the service user still reads it)', async () => {
    // As the operator would have set it up: the file belongs to the BFF's service user.
    await chown(file, 4321, 4321);
    await setUserDisabled({ file, email: 'pat@example.com', disabled: true });
    const after = await stat(file);
    expect([after.uid, after.gid]).toEqual([4321, 4321]);
    expect(after.mode & 0o777).toBe(0o600);
  });

  it('refuses to remove the only person left, or someone not in the file, changing nothing', async () => {
    await expect(removeUser({ file, email: 'nobody@example.com' })).rejects.toThrow(
      /nobody@example.com is not in/,
    );
    await removeUser({ file, email: 'pat@example.com' });
    const before = await readFile(file, 'utf8');
    await expect(removeUser({ file, email: 'lee@example.com' })).rejects.toThrow(
      /only person .*`pnpm users disable`/,
    );
    expect(await readFile(file, 'utf8')).toBe(before);
  });

  it('disables a person, who then cannot sign in; enabling lets them in again', async () => {
    expect(await setUserDisabled({ file, email: 'pat@example.com', disabled: true })).toBe(true);
    expect(await entries()).toEqual([
      expect.objectContaining({ email: 'pat@example.com', disabled: true }),
      expect.not.objectContaining({ disabled: expect.anything() }),
    ]);
    let users = await UserDirectory.fromFile(file);
    expect(await users.authenticate('pat@example.com', password)).toBeUndefined();
    expect(await users.authenticate('lee@example.com', password)).toBeDefined();

    expect(await setUserDisabled({ file, email: 'pat@example.com', disabled: true })).toBe(false);
    expect(await setUserDisabled({ file, email: 'pat@example.com', disabled: false })).toBe(true);
    expect((await entries())[0]).not.toHaveProperty('disabled');
    users = await UserDirectory.fromFile(file);
    expect(await users.authenticate('pat@example.com', password)).toBeDefined();
  });

  it('keeps a disabled person disabled when their password changes', async () => {
    await setUserDisabled({ file, email: 'pat@example.com', disabled: true });
    const result = await addUser({
      file,
      email: 'pat@example.com',
      role: 'finance',
      password: 'another long password',
      scrypt: demoScrypt,
    });
    expect(result).toEqual({ created: false, disabled: true });
    const users = await UserDirectory.fromFile(file);
    expect(await users.authenticate('pat@example.com', 'another long password')).toBeUndefined();
  });

  it('refuses someone not in the file', async () => {
    await expect(
      setUserDisabled({ file, email: 'nobody@example.com', disabled: true }),
    ).rejects.toThrow(/not in/);
  });
});

describe('pnpm users link / unlink (core)', () => {
  const issuer = 'https://idp.example.com';

  it('links a person to a provider subject, which the BFF then finds; unlink takes it away', async () => {
    expect(await linkUser({ file, email: 'Pat@Example.com', issuer, subject: 'sub-pat' })).toBe(
      true,
    );
    expect(await linkUser({ file, email: 'pat@example.com', issuer, subject: 'sub-pat' })).toBe(
      false,
    );
    let users = await UserDirectory.fromFile(file);
    expect(users.findLinked(`${issuer}/`, 'sub-pat')?.email).toBe('pat@example.com');
    expect(users.findLinked('https://other.example.com', 'sub-pat')).toBeUndefined();
    expect(users.findLinked(issuer, 'sub-lee')).toBeUndefined();
    // Re-adding the person (a new password) keeps the link.
    await addUser({
      file,
      email: 'pat@example.com',
      role: 'finance',
      password,
      scrypt: demoScrypt,
    });
    users = await UserDirectory.fromFile(file);
    expect(users.findLinked(issuer, 'sub-pat')?.email).toBe('pat@example.com');

    expect(await unlinkUser({ file, email: 'pat@example.com' })).toBe(true);
    expect(await unlinkUser({ file, email: 'pat@example.com' })).toBe(false);
    users = await UserDirectory.fromFile(file);
    expect(users.findLinked(issuer, 'sub-pat')).toBeUndefined();
  });

  it('one provider identity is one person: linking it to another moves the link', async () => {
    await linkUser({ file, email: 'pat@example.com', issuer, subject: 'shared' });
    expect(await linkUser({ file, email: 'lee@example.com', issuer, subject: 'shared' })).toBe(
      true,
    );
    const linked = (await entries()).map((u) => [u.email, (u as { sso?: unknown }).sso]);
    expect(linked).toEqual([
      ['pat@example.com', undefined],
      ['lee@example.com', { issuer, subject: 'shared' }],
    ]);
  });

  it.each([
    ['an issuer that is no URL', { issuer: 'idp', subject: 's' }, /--issuer/],
    ['a subject with a space', { issuer, subject: 'a b' }, /--subject/],
    ['an empty subject', { issuer, subject: '' }, /--subject/],
  ])('refuses %s, changing nothing', async (_, link, message) => {
    const before = await readFile(file, 'utf8');
    await expect(linkUser({ file, email: 'pat@example.com', ...link })).rejects.toThrow(message);
    await expect(
      linkUser({ file, email: 'nobody@example.com', issuer, subject: 's' }),
    ).rejects.toThrow(/not in/);
    expect(await readFile(file, 'utf8')).toBe(before);
  });
});
