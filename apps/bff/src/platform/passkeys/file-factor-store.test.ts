import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { StoredPasskey } from './factor-store';
import { factorStoreContract } from './factor-store.contract';
import { FileFactorStore, SECOND_FACTORS_FILE } from './file-factor-store';

const dirs: string[] = [];
const freshDir = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'cc-factors-'));
  dirs.push(dir);
  return dir;
};
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true, maxRetries: 5 });
});

// One replica: both views are the same store, its changes queued in-process.
factorStoreContract('FileFactorStore', async () => {
  const store = await FileFactorStore.open(await freshDir());
  return { a: store, b: store };
});

const passkey: StoredPasskey = {
  id: 'AbC-123_x',
  publicKey: 'pQECAyYgASFYIA',
  counter: 3,
  transports: ['usb'],
  name: 'YubiKey',
  createdAt: 1_760_000_000_000,
};

describe('FileFactorStore', () => {
  it('survives a restart: a new instance on the same folder reads what the old one wrote', async () => {
    const dir = await freshDir();
    const before = await FileFactorStore.open(dir);
    await before.addPasskey('ada@example.test', passkey);
    await before.setTotpDisabled('ada@example.test', true);
    await before.recordUse('ada@example.test', passkey.id, 8, 1_760_000_001_000);
    const after = await FileFactorStore.open(dir);
    expect(await after.get('ada@example.test')).toEqual({
      passkeys: [{ ...passkey, counter: 8, lastUsedAt: 1_760_000_001_000 }],
      totpDisabled: true,
    });
    expect(await after.addPasskey('bob@example.test', passkey)).toBe('duplicate');
  });

  it('writes version 1 with people by email, readable only by its owner, and no temp file left', async () => {
    const dir = await freshDir();
    const store = await FileFactorStore.open(dir);
    await store.addPasskey('ada@example.test', passkey);
    const file = join(dir, SECOND_FACTORS_FILE);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({
      version: 1,
      people: { 'ada@example.test': { passkeys: [passkey], totpDisabled: false } },
    });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await readdir(dir)).toEqual([SECOND_FACTORS_FILE]);
  });

  it('writes nothing until something changes, and drops a person left with nothing', async () => {
    const dir = await freshDir();
    const store = await FileFactorStore.open(dir);
    expect(await store.setTotpDisabled('ada@example.test', true)).toBe('no_passkey');
    expect(await store.removePasskey('ada@example.test', passkey.id)).toBe('not_found');
    expect(await readdir(dir)).toEqual([]);
    await store.addPasskey('ada@example.test', passkey);
    await store.removePasskey('ada@example.test', passkey.id);
    const file = JSON.parse(await readFile(join(dir, SECOND_FACTORS_FILE), 'utf8'));
    expect(file).toEqual({ version: 1, people: {} });
  });

  it('refuses to open a file that is not JSON, naming the file and never quoting it', async () => {
    const dir = await freshDir();
    await writeFile(join(dir, SECOND_FACTORS_FILE), '{"people": SECRET-LOOKING');
    const opening = FileFactorStore.open(dir);
    await expect(opening).rejects.toThrow(join(dir, SECOND_FACTORS_FILE));
    await expect(opening).rejects.not.toThrow(/SECRET/);
  });

  it.each([
    ['another version', { version: 2, people: {} }],
    [
      'a passkey without its key',
      {
        version: 1,
        people: {
          'a@x.test': { passkeys: [{ ...passkey, publicKey: undefined }], totpDisabled: false },
        },
      },
    ],
    ['an unknown field', { version: 1, people: {}, SECRET_FIELD: 1 }],
    [
      'one credential twice',
      {
        version: 1,
        people: {
          'a@x.test': { passkeys: [passkey], totpDisabled: false },
          'b@x.test': { passkeys: [passkey], totpDisabled: false },
        },
      },
    ],
    [
      'eleven passkeys',
      {
        version: 1,
        people: {
          'a@x.test': {
            passkeys: Array.from({ length: 11 }, (_, i) => ({ ...passkey, id: `k${i}` })),
            totpDisabled: false,
          },
        },
      },
    ],
  ])('refuses to open a file with %s, naming the file and never quoting it', async (_, content) => {
    const dir = await freshDir();
    await writeFile(join(dir, SECOND_FACTORS_FILE), JSON.stringify(content));
    const opening = FileFactorStore.open(dir);
    await expect(opening).rejects.toThrow(
      `${join(dir, SECOND_FACTORS_FILE)} is not a valid second-factors file`,
    );
    await expect(opening).rejects.not.toThrow(/SECRET|a@x\.test|AbC/);
  });

  it('a change that cannot be written fails and is not kept; the next one still runs', async () => {
    const dir = await freshDir();
    const store = await FileFactorStore.open(dir);
    await store.addPasskey('ada@example.test', passkey);
    await rm(dir, { recursive: true });
    await expect(store.renamePasskey('ada@example.test', passkey.id, 'Lost')).rejects.toThrow();
    expect((await store.get('ada@example.test')).passkeys[0]?.name).toBe('YubiKey');
    await mkdir(dir);
    expect(await store.renamePasskey('ada@example.test', passkey.id, 'Kept')).toMatchObject({
      name: 'Kept',
    });
    await expect((await FileFactorStore.open(dir)).get('ada@example.test')).resolves.toMatchObject({
      passkeys: [{ name: 'Kept' }],
    });
  });
});
