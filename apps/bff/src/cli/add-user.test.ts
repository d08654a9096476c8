import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { demoScrypt } from '../platform/users/password-hash';
import { UserDirectory } from '../platform/users/user-directory';
import { addUser } from './add-user';

let dir: string;
let file: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'users-cli-'));
  file = join(dir, 'users.json');
});
afterEach(() => rm(dir, { recursive: true, force: true, maxRetries: 5 }));

const add = (email: string, role: 'finance' | 'admin', password = 'a long enough password') =>
  addUser({ file, email, role, password, scrypt: demoScrypt });

describe('pnpm users add (core)', () => {
  it('creates the file with mode 0600 and a hashed password, never the plain one', async () => {
    const result = await add('Pat@Example.com', 'finance');
    expect(result).toEqual({ created: true });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const text = await readFile(file, 'utf8');
    expect(text).not.toContain('a long enough password');
    expect(JSON.parse(text)[0]).toMatchObject({ email: 'pat@example.com', role: 'finance' });
    const users = await UserDirectory.fromFile(file);
    expect(await users.authenticate('pat@example.com', 'a long enough password')).toBeDefined();
    expect(await users.authenticate('pat@example.com', 'wrong')).toBeUndefined();
  });

  it('gives an admin a TOTP secret and prints its otpauth URI', async () => {
    const result = await add('ada@example.com', 'admin');
    expect(result.otpauthUri).toMatch(
      /^otpauth:\/\/totp\/Card%20Console:ada%40example\.com\?secret=[A-Z2-7]{32}/,
    );
    const [entry] = JSON.parse(await readFile(file, 'utf8'));
    expect(result.otpauthUri).toContain(entry.totpSecret);
  });

  it('updates an existing user in place, keeping an admin’s secret when only the password changes', async () => {
    await add('ada@example.com', 'admin');
    await add('bo@example.com', 'finance');
    const before = JSON.parse(await readFile(file, 'utf8'));
    const result = await add('ada@example.com', 'admin', 'another long password');
    expect(result).toEqual({ created: false });
    const after = JSON.parse(await readFile(file, 'utf8'));
    expect(after).toHaveLength(2);
    expect(after[0].totpSecret).toBe(before[0].totpSecret);
    expect(after[0].passwordHash).not.toBe(before[0].passwordHash);
  });

  it('keeps the authenticator of a person made finance (a second factor is for every role)', async () => {
    await add('ada@example.com', 'admin');
    const before = JSON.parse(await readFile(file, 'utf8'));
    const result = await add('ada@example.com', 'finance', 'another long password');
    expect(result).toEqual({ created: false });
    const [after] = JSON.parse(await readFile(file, 'utf8'));
    expect(after).toMatchObject({ role: 'finance', totpSecret: before[0].totpSecret });
  });

  it('refuses demo accounts, short passwords and a corrupt file (leaving it untouched)', async () => {
    await expect(add('admin@demo.test', 'admin')).rejects.toThrow(/demo/);
    await expect(add('x@example.com', 'finance', 'short')).rejects.toThrow(/12/);
    await writeFile(file, '{"not": "a list"}');
    await expect(add('x@example.com', 'finance')).rejects.toThrow(/not a valid users file/);
    expect(await readFile(file, 'utf8')).toBe('{"not": "a list"}');
  });
});
