// Upgrading a real deployment whose people store keeps TOTP secrets in clear (the release before
// they were sealed): the production entry point, on the embedded engine, migrates the schema,
// seals the secret with TOTP_ENCRYPTION_KEY when it opens the people store, says so in its log,
// and the admin signs in with the authenticator they already had.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CardService, createCardService } from '@card-console/card-service-sim';
import { runner } from 'node-pg-migrate';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { totpKeyId } from '../../platform/security/totp-secret-box';
import { INDEX_MIGRATIONS_TABLE, indexMigrationsDir } from '../../platform/sql/index-migrations';
import { embeddedEngine } from '../../platform/sql/sql-engine';
import { type BffProcess, productionEnv, startBffProcess } from '../../test/engines/bff-process';
import { buildTestUsers, type TestCredentials } from '../../test/test-users';
import { totpCodeAt } from '../../test/totp-source';

const origin = 'https://cards.example.test';
const KEY = randomBytes(32);
let dir: string;
let sim: CardService;
let bff: BffProcess | undefined;
let admin: Required<TestCredentials>;
let env: Record<string, string>;

/** The embedded store as the previous release left it: its schema, the admin's secret in clear. */
async function previousRelease(storeDir: string, passwordHash: string) {
  const engine = await embeddedEngine(storeDir);
  try {
    const files = (await readdir(indexMigrationsDir())).filter((f) => f.endsWith('.sql')).sort();
    const count = files.indexOf('20261128090000000_totp-secrets-sealed.sql');
    await engine.withMigrationClient((dbClient) =>
      runner({
        dbClient: dbClient as never,
        dir: indexMigrationsDir(),
        migrationsTable: INDEX_MIGRATIONS_TABLE,
        direction: 'up',
        count,
        singleTransaction: true,
        noLock: true,
        logger: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
      }),
    );
    const at = new Date().toISOString();
    await engine.query(
      `INSERT INTO person (email, role, password_hash, totp_secret, source, created_at,
         updated_at, version) VALUES ($1, 'admin', $2, $3, 'file', $4, $4, 1)`,
      [admin.email, passwordHash, admin.totpSecret, at],
    );
    await engine.query('INSERT INTO person_import (email, imported_at) VALUES ($1, $2)', [
      admin.email,
      at,
    ]);
  } finally {
    await engine.close();
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bff-upgrade-'));
  const apiKey = `test-key-${randomBytes(16).toString('hex')}`;
  sim = createCardService({ apiKey, transactions: 100 });
  const { url } = await sim.listen(0, '127.0.0.1');
  const users = await buildTestUsers('production', dir);
  admin = users.credentials.admin as Required<TestCredentials>;
  const hash = users.users.users().find((u) => u.email === admin.email)?.passwordHash ?? '';
  await previousRelease(join(dir, 'transaction-index'), hash);
  env = productionEnv(
    { cardServiceUrl: url, apiKey, usersFile: users.usersFile, origin, dataDir: dir },
    { TOTP_ENCRYPTION_KEY: KEY.toString('base64'), LOG_LEVEL: 'info' },
  );
}, 120_000);
afterAll(async () => {
  bff?.kill('SIGKILL');
  await sim?.close();
  await rm(dir, { recursive: true, force: true, maxRetries: 5 });
});

describe('upgrading to sealed second-factor secrets', () => {
  it('the first start seals the secret kept in clear; the admin signs in with the same authenticator', async () => {
    const p = await startBffProcess(env);
    bff = p;
    const signIn = await fetch(`${p.url}/api/session`, {
      method: 'POST',
      headers: { 'X-CSRF': '1', Origin: origin, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        email: admin.email,
        password: admin.password,
        totp: totpCodeAt(admin.totpSecret, Date.now()),
      }),
    });
    expect(signIn.status, await signIn.clone().text()).toBe(200);
    // The process writes the line as it seals; its output reaches this test a moment later
    // (a pipe), possibly after the sign-in's answer on a loaded machine.
    await vi.waitFor(
      () =>
        expect(
          p.logs.find((l) => l.msg === 'second-factor secrets sealed with the current key'),
        ).toMatchObject({ sealed: 1, resealed: 0 }),
      { timeout: 10_000, interval: 50 },
    );
    // The key and the secret appear in no line the process wrote.
    const output = JSON.stringify(p.logs) + p.stderr;
    expect(output).not.toContain(admin.totpSecret);
    expect(output).not.toContain(KEY.toString('base64'));
    p.kill('SIGTERM');
    await p.exited;
    bff = undefined;

    const engine = await embeddedEngine(join(dir, 'transaction-index'));
    try {
      const rows = await engine.query<{ totp_secret: string; totp_secret_unsealed: null }>(
        'SELECT * FROM person WHERE email = $1',
        [admin.email],
      );
      expect(rows).toHaveLength(1);
      expect(rows[0]?.totp_secret.split(':').slice(0, 2)).toEqual(['v1', totpKeyId(KEY)]);
      expect(rows[0]?.totp_secret_unsealed).toBeNull();
      expect(JSON.stringify(rows)).not.toContain(admin.totpSecret);
    } finally {
      await engine.close();
    }
  }, 180_000);
});
