// `pnpm migrate` and a production replica, as separate processes against a real PostgreSQL set
// up with the documented roles: the job applies every migration set as the owner and exits; a
// replica never takes the owner's login, and refuses a schema behind or ahead of its build.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareAuditDatabase, runMigrate } from '../test/engines/audit-database';
import { startBffProcess } from '../test/engines/bff-process';
import { type PostgresEngine, startPostgres } from '../test/engines/postgres';
import { addUser } from './add-user';

let postgres: PostgresEngine;
let dir: string;
let usersFile: string;
let counter = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cc-migrate-'));
  postgres = await startPostgres();
  usersFile = join(dir, 'users.json');
  await addUser({
    file: usersFile,
    email: 'finance@example.test',
    role: 'finance',
    password: 'correct horse battery staple',
  });
}, 60_000);

afterAll(async () => {
  await postgres?.destroy();
  await rm(dir, { recursive: true, force: true, maxRetries: 5 });
});

let first: { ownerUrl: string; appUrl: string };

/**
 * A database with the operator's roles (docs/operations/audit-trail.md): the first makes them,
 * the others share them (roles belong to the cluster) and the BFF's login.
 */
async function database(): Promise<{ ownerUrl: string; appUrl: string }> {
  const name = `card_console_${counter++}`;
  if (!first) {
    first = await prepareAuditDatabase(postgres, name);
    return first;
  }
  const ownerUrl = await postgres.createDatabase(name);
  const appUrl = new URL(first.appUrl);
  appUrl.pathname = `/${name}`;
  return { ownerUrl, appUrl: appUrl.toString() };
}

/** A production replica's environment on `databaseUrl` (the card service is never asked). */
const production = (env: Record<string, string>) => ({
  CARD_API_BASE_URL: 'http://127.0.0.1:9',
  CARD_API_KEY: randomBytes(24).toString('base64url'),
  USERS_FILE: usersFile,
  SESSION_SECRET: randomBytes(32).toString('base64url'),
  TOTP_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  PUBLIC_ORIGIN: 'http://localhost:8080',
  DATA_DIR: join(dir, `replica-${counter}`),
  WEB_DIST: join(dir, 'no-web'),
  LOG_LEVEL: 'info',
  ...env,
});

/** Why a replica did not start: what it wrote before exiting (startBffProcess's error). */
async function refusal(env: Record<string, string>): Promise<string> {
  try {
    const replica = await startBffProcess(production(env));
    replica.kill('SIGKILL');
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('the replica started');
}

async function asOwner(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

describe('pnpm migrate, then the replicas', () => {
  let db: { ownerUrl: string; appUrl: string };
  beforeAll(async () => {
    db = await database();
  }, 60_000);

  it('refuses a replica on a database not migrated yet, saying to run `pnpm migrate`', async () => {
    const message = await refusal({ DATABASE_URL: db.appUrl });
    expect(message).toMatch(
      /The database's schema in DATABASE_URL is behind this build \(not applied: .*\): run `pnpm migrate`/,
    );
  }, 90_000);

  it('applies every set as the owner and exits 0; a second run finds nothing to do', async () => {
    const first = await runMigrate({ DATABASE_MIGRATION_URL: db.ownerUrl });
    expect(first.stderr).toBe('');
    // One runner for every set, in the order of their timestamps: the audit trail's first.
    expect(first.stdout).toMatch(
      /^Migrations: applied \d{17}_audit-trail, .*, \d{17}_transaction-index, .*one-migrations-table/m,
    );
    // Alert delivery needs nothing beyond the index's outbox: no queue schema of its own.
    expect(first.stdout).not.toMatch(/alert queue|pg-boss/);
    const owner = new URL(db.ownerUrl);
    expect(first.stdout).toContain(`Migrating ${owner.username}@${owner.host}${owner.pathname}`);
    expect(first.code).toBe(0);

    const client = new pg.Client({ connectionString: db.ownerUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ queue: string | null }>(
        "SELECT to_regnamespace('pgboss')::text AS queue",
      );
      expect(rows).toEqual([{ queue: null }]);
    } finally {
      await client.end();
    }

    const again = await runMigrate({ DATABASE_MIGRATION_URL: db.ownerUrl });
    expect(again.stdout).toContain('Migrations: current, nothing to apply');
    expect(again.code).toBe(0);
  }, 120_000);

  it('starts a production replica as the login that may only insert and select, which logs the trail head', async () => {
    const replica = await startBffProcess(production({ DATABASE_URL: db.appUrl }));
    try {
      const deadline = Date.now() + 10_000;
      while (!replica.logs.some((l) => l.msg === 'audit trail head') && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
      }
      const head = replica.logs.find((l) => l.msg === 'audit trail head');
      expect(head?.auditHead).toMatch(/^\d+:[0-9a-f]{64}$/);
    } finally {
      replica.kill('SIGKILL');
      await replica.exited;
    }
  }, 90_000);

  it("refuses to start with DATABASE_MIGRATION_URL set, or with the owner's login as DATABASE_URL", async () => {
    const ownerWithPassword = new URL(db.ownerUrl);
    ownerWithPassword.password = 'owner-s3cret-pw';
    const withOwner = await refusal({
      DATABASE_URL: db.appUrl,
      DATABASE_MIGRATION_URL: ownerWithPassword.toString(),
    });
    expect(withOwner).toMatch(/DATABASE_MIGRATION_URL: set for the server; .*only `pnpm migrate`/);
    expect(withOwner).not.toContain('owner-s3cret-pw');

    const asOwnerLogin = await refusal({ DATABASE_URL: db.ownerUrl });
    expect(asOwnerLogin).toMatch(/may update, delete, truncate audit records/);
  }, 90_000);

  it('refuses a schema a newer build migrated, in the replica and in `pnpm migrate`', async () => {
    const newer = await database();
    expect((await runMigrate({ DATABASE_MIGRATION_URL: newer.ownerUrl })).code).toBe(0);
    await asOwner(
      newer.ownerUrl,
      "INSERT INTO card_console_migrations (name, run_on) VALUES ('99991231000000000_from-a-newer-build', now())",
    );
    const message = await refusal({ DATABASE_URL: newer.appUrl });
    expect(message).toMatch(
      /The database's schema in DATABASE_URL is newer than this build: it has 99991231000000000_from-a-newer-build, and the newest migration this build knows is \d{17}_/,
    );
    const migrate = await runMigrate({ DATABASE_MIGRATION_URL: newer.ownerUrl });
    expect(migrate.stderr).toMatch(/newer than this build/);
    expect(migrate.code).toBe(1);
  }, 120_000);

  it('refuses without DATABASE_MIGRATION_URL, naming it', async () => {
    const run = await runMigrate({});
    expect(run.stderr).toContain('DATABASE_MIGRATION_URL: required');
    expect(run.code).toBe(1);
  });
});
