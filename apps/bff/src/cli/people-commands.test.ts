// `pnpm users` on the people store (no --file): the commands' cores against the embedded engine,
// and the command itself refusing to open the embedded engine beside a running server.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PeopleStore } from '../features/people/people-store';
import { emptyPeople, ISSUER } from '../features/people/people-store.contract';
import { JsonlAuditStore } from '../platform/audit/jsonl-audit-store';
import { embeddedStoreDir } from '../platform/locks/data-dir-lock';
import type { StoredPasskey } from '../platform/passkeys/factor-store';
import { FileFactorStore } from '../platform/passkeys/file-factor-store';
import { SqlFactorStore } from '../platform/passkeys/sql-factor-store';
import { applyIndexMigrations } from '../platform/sql/index-migrations';
import { embeddedEngine, type SqlEngine } from '../platform/sql/sql-engine';
import { demoScrypt, verifyPassword } from '../platform/users/password-hash';
import { silentLogger } from '../test/audit-cluster';
import { migratedMemoryEngine } from '../test/engines/embedded';
import { ManualClock } from '../test/manual-clock';
import { testTotpSecrets } from '../test/totp-keys';
import {
  addPerson,
  linkPerson,
  listPeople,
  operatorActor,
  type PeopleCommands,
  removePerson,
  setPersonDisabled,
  unlinkPerson,
} from './people-commands';

const password = 'a long enough password';
let engine: SqlEngine;
let store: PeopleStore;
let trailDir: string;
/** The store and the trail its changes are recorded in (people-commands-audit.test.ts). */
let on: PeopleCommands;
/** The second factors the server keeps by email, on the same engine (as with DATABASE_URL). */
let factors: SqlFactorStore;
beforeAll(async () => {
  engine = await migratedMemoryEngine();
  store = new PeopleStore(engine, undefined, testTotpSecrets());
  trailDir = await mkdtemp(join(tmpdir(), 'users-cli-trail-'));
  factors = new SqlFactorStore(engine);
  on = {
    store,
    trail: {
      audit: new JsonlAuditStore(trailDir, new ManualClock()),
      actor: operatorActor('ops', 'admin-host'),
      logger: silentLogger,
    },
    factors,
  };
});
afterAll(async () => {
  await engine.close();
  await rm(trailDir, { recursive: true, force: true, maxRetries: 5 });
});
beforeEach(async () => {
  await emptyPeople(engine);
  await engine.query('DELETE FROM person_passkey');
  await engine.query('DELETE FROM person_factors');
});

/** A passkey as the store keeps one (the store never checks its key). */
const passkey = (id: string): StoredPasskey => ({
  id,
  publicKey: 'pQECAyYgASFYIMp-xGa_7vM1bXkM2PbTq0aUb5eR2E6a3WfP7c6dVg0sIlggWkZ',
  counter: 0,
  transports: ['internal'],
  name: 'Laptop',
  createdAt: 1_760_000_000_000,
});
/** A sealed TOTP secret's shape (totp-secret-box.ts); the store never opens it. */
const SEALED = 'v1:AbCdEf12:k1-iv0000:body_1:tag';

describe('pnpm users on the people store (cores)', () => {
  it('adds people who can sign in at once; an admin gets a TOTP secret; never over someone', async () => {
    const admin = await addPerson(on, {
      email: ' Ada@Example.com ',
      role: 'admin',
      password,
      scrypt: demoScrypt,
    });
    expect(admin.otpauthUri).toMatch(/^otpauth:\/\/totp\//);
    expect(
      await addPerson(on, {
        email: 'lee@example.com',
        role: 'finance',
        password,
        scrypt: demoScrypt,
      }),
    ).toEqual({});
    const ada = await store.find('ada@example.com');
    expect(ada).toMatchObject({ role: 'admin', pending: false, hasTotp: true });
    expect(await verifyPassword(password, ada?.passwordHash as string)).toBe(true);
    expect(await listPeople(store)).toEqual([
      'ada@example.com\tadmin\tactive\tinvited',
      'lee@example.com\tfinance\tactive\tinvited',
    ]);
    await expect(
      addPerson(on, { email: 'lee@example.com', role: 'admin', password, scrypt: demoScrypt }),
    ).rejects.toThrow('lee@example.com is already in Card Console');
    await expect(
      addPerson(on, { email: 'kim@example.com', role: 'finance', password: 'short' }),
    ).rejects.toThrow('at least 12 characters');
  });

  it('disables, enables, links, unlinks and removes, keeping the last admin', async () => {
    await addPerson(on, {
      email: 'ada@example.com',
      role: 'admin',
      password,
      scrypt: demoScrypt,
    });
    await addPerson(on, {
      email: 'lee@example.com',
      role: 'finance',
      password,
      scrypt: demoScrypt,
    });
    expect(await setPersonDisabled(on, 'lee@example.com', true)).toBe(true);
    expect(await setPersonDisabled(on, 'lee@example.com', true)).toBe(false);
    expect((await store.find('lee@example.com'))?.disabled).toBe(true);
    expect(await setPersonDisabled(on, 'lee@example.com', false)).toBe(true);
    await expect(setPersonDisabled(on, 'ada@example.com', true)).rejects.toThrow(
      'ada@example.com: the last admin cannot be disabled',
    );
    await expect(removePerson(on, 'ada@example.com')).rejects.toThrow('the last admin');
    await expect(removePerson(on, 'nobody@example.com')).rejects.toThrow(
      'nobody@example.com: no such person',
    );

    const before = (await store.find('lee@example.com'))?.version as number;
    expect(await linkPerson(on, { email: 'lee@example.com', issuer: ISSUER, subject: 's-1' })).toBe(
      true,
    );
    expect(
      await linkPerson(on, { email: 'lee@example.com', issuer: `${ISSUER}/`, subject: 's-1' }),
    ).toBe(false);
    // A change of the link is a change of the person: their sessions end.
    expect((await store.find('lee@example.com'))?.version).toBe(before + 1);
    expect((await store.findBySso(ISSUER, 's-1'))?.email).toBe('lee@example.com');
    await expect(
      linkPerson(on, { email: 'ada@example.com', issuer: ISSUER, subject: 's-1' }),
    ).rejects.toThrow('another person is linked to this single sign-on identity');
    expect(await unlinkPerson(on, 'lee@example.com')).toBe(true);
    expect(await unlinkPerson(on, 'lee@example.com')).toBe(false);
    await removePerson(on, 'lee@example.com');
    expect(await store.find('lee@example.com')).toBeUndefined();
  });

  it("drops a removed person's second factors, and any left under an email before adding it", async () => {
    for (const email of ['ada@example.com', 'lee@example.com']) {
      await addPerson(on, { email, role: 'admin', password, scrypt: demoScrypt });
    }
    await factors.addPasskey('lee@example.com', passkey('cred-lee'));
    await factors.setTotpSecret('lee@example.com', SEALED);
    await factors.addPasskey('ada@example.com', passkey('cred-ada'));
    await removePerson(on, 'Lee@Example.com');
    // Removed: nothing of theirs is left for whoever is given the email next.
    expect(await factors.get('lee@example.com')).toEqual({ passkeys: [], totpDisabled: false });
    expect((await factors.get('ada@example.com')).passkeys.map((p) => p.id)).toEqual(['cred-ada']);
    // Factors left under an email nobody has (an older build's removal): dropped before adding.
    await factors.addPasskey('lee@example.com', passkey('cred-left'));
    await factors.setTotpSecret('lee@example.com', SEALED);
    await addPerson(on, { email: 'lee@example.com', role: 'admin', password, scrypt: demoScrypt });
    expect(await factors.get('lee@example.com')).toEqual({ passkeys: [], totpDisabled: false });
    // Someone's own are never dropped by a refused add.
    await expect(
      addPerson(on, { email: 'ada@example.com', role: 'admin', password, scrypt: demoScrypt }),
    ).rejects.toThrow('already in Card Console');
    expect((await factors.get('ada@example.com')).passkeys.map((p) => p.id)).toEqual(['cred-ada']);
  });

  it('says so when the factors cannot be dropped, and the removal stands', async () => {
    await addPerson(on, { email: 'ada@example.com', role: 'admin', password, scrypt: demoScrypt });
    await addPerson(on, {
      email: 'lee@example.com',
      role: 'finance',
      password,
      scrypt: demoScrypt,
    });
    const failing: PeopleCommands = {
      ...on,
      factors: { forget: () => Promise.reject(new Error('disk full')) },
    };
    await expect(removePerson(failing, 'lee@example.com')).rejects.toThrow(
      'lee@example.com was removed, but their second factors could not be dropped (disk full); adding or inviting the email again drops them',
    );
    expect(await store.find('lee@example.com')).toBeUndefined();
  });

  it('never unlinks a person whose only way in is single sign-on', async () => {
    await store.upsertSsoPerson({
      issuer: ISSUER,
      subject: 's-2',
      email: 'sso@example.com',
      role: 'finance',
    });
    await expect(unlinkPerson(on, 'sso@example.com')).rejects.toThrow(
      'signs in only through single sign-on',
    );
  });
});

describe('pnpm users (the command)', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'users-cli-store-'));
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true, maxRetries: 5 }));

  const run = (args: string[]) =>
    promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', join(import.meta.dirname, 'users.ts'), ...args],
      {
        cwd: join(import.meta.dirname, '..', '..'),
        env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '' },
        timeout: 60_000,
      },
    ).then(
      (done) => ({ code: 0, ...done }),
      (failed: { code: number; stdout: string; stderr: string }) => failed,
    );

  it('opens the embedded engine only when told the server is stopped', async () => {
    const refused = await run(['disable', 'lee@example.com']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'stop Card Console, then run this again with --server-stopped',
    );
    const missing = await run(['list', '--server-stopped']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`no people store in ${dataDir}`);
  }, 90_000);

  it("removes a person from the embedded engine and their second factors from DATA_DIR's file", async () => {
    // DATA_DIR as a server with one replica leaves it: the people in the embedded engine, the
    // second factors in their file.
    const engine = await embeddedEngine(embeddedStoreDir(dataDir));
    try {
      await applyIndexMigrations(engine, silentLogger);
      const here: PeopleCommands = {
        store: new PeopleStore(engine, undefined, testTotpSecrets()),
        trail: { ...on.trail, audit: new JsonlAuditStore(dataDir, new ManualClock()) },
      };
      for (const [email, role] of [
        ['ada@example.com', 'admin'],
        ['lee@example.com', 'finance'],
      ] as const) {
        await addPerson(here, { email, role, password, scrypt: demoScrypt });
      }
    } finally {
      await engine.close();
    }
    const file = await FileFactorStore.open(dataDir);
    await file.addPasskey('lee@example.com', passkey('cred-lee'));
    await file.addPasskey('ada@example.com', passkey('cred-ada'));

    const removed = await run(['remove', 'lee@example.com', '--server-stopped']);
    expect(removed.stderr).toBe('');
    expect(removed.stdout).toContain('Removed lee@example.com');
    const after = await FileFactorStore.open(dataDir);
    expect(await after.get('lee@example.com')).toEqual({ passkeys: [], totpDisabled: false });
    expect((await after.get('ada@example.com')).passkeys.map((p) => p.id)).toEqual(['cred-ada']);
  }, 120_000);
});
