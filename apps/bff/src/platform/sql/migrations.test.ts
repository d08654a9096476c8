// `pnpm migrate` on PostgreSQL: every set under one runner, recorded in one table, whether the
// database is new or was migrated by an older build (a table per set, moved here once), with two
// runs at once applying everything once; and what an older build reads afterwards.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asSuperuser, silentLogger } from '../../test/audit-cluster';
import { prepareAuditDatabase, runMigrate } from '../../test/engines/audit-database';
import {
  migrateAsOlderBuild,
  olderBuildMigrations,
} from '../../test/engines/older-build-migrations';
import { type PostgresEngine, startPostgres } from '../../test/engines/postgres';
import { connectPostgresAudit } from '../audit/postgres-audit';
import { appliedMigrations, migrationMismatch } from '../migrations/migration-versions';
import { enginesSets, MIGRATIONS_TABLE, setsMigrations } from './migrations';
import { postgresEngine } from './sql-engine';

let postgres: PostgresEngine;
let counter = 0;
let roles: { appUrl: string } | undefined;

beforeAll(async () => {
  postgres = await startPostgres();
}, 60_000);
afterAll(() => postgres?.destroy());

/** A database with the operator's roles; the BFF's login (writer roles only) on it. */
async function database(): Promise<{ ownerUrl: string; appUrl: string }> {
  const name = `cc_migrations_${counter++}`;
  if (!roles) {
    roles = await prepareAuditDatabase(postgres, name);
    return { ownerUrl: postgres.urlFor(name), appUrl: roles.appUrl };
  }
  const ownerUrl = await postgres.createDatabase(name);
  const appUrl = new URL(roles.appUrl);
  appUrl.pathname = `/${name}`;
  return { ownerUrl, appUrl: appUrl.toString() };
}

/** Two `pnpm migrate` processes at once; the names each applied. */
async function twoMigrateRuns(ownerUrl: string): Promise<string[][]> {
  const runs = await Promise.all(
    [1, 2].map(() => runMigrate({ DATABASE_MIGRATION_URL: ownerUrl })),
  );
  return runs.map((run) => {
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const line = run.stdout.split('\n').find((l) => l.startsWith('Migrations: '));
    if (line === 'Migrations: current, nothing to apply') return [];
    expect(line).toMatch(/^Migrations: applied /);
    return (line ?? '').slice('Migrations: applied '.length).split(', ');
  });
}

const recorded = async (url: string, table: string) =>
  (
    await asSuperuser<{ name: string; run_on: Date }>(
      url,
      `SELECT name, run_on FROM ${table} ORDER BY run_on, id`,
    )
  ).rows;

const relkinds = async (url: string) =>
  (
    await asSuperuser<{ relname: string; relkind: string }>(
      url,
      "SELECT relname, relkind FROM pg_class WHERE relname IN ('pgmigrations', 'index_migrations', 'card_console_migrations') ORDER BY relname",
    )
  ).rows.map((r) => `${r.relname}:${r.relkind}`);

/** What a build before the one table says, reading its two tables as the BFF's login. */
async function olderBuildSays(appUrl: string): Promise<(string | undefined)[]> {
  const client = new pg.Client({ connectionString: appUrl });
  await client.connect();
  try {
    const run = async (sql: string) => (await client.query(sql)).rows;
    return [
      migrationMismatch(
        'audit trail',
        'DATABASE_URL',
        await olderBuildMigrations('audit-trail'),
        await appliedMigrations(run, 'pgmigrations'),
      )?.message,
      migrationMismatch(
        'transaction index',
        'DATABASE_URL',
        await olderBuildMigrations('transaction-index'),
        await appliedMigrations(run, 'index_migrations'),
      )?.message,
    ];
  } finally {
    await client.end();
  }
}

describe('the migrations on PostgreSQL', () => {
  it('a new database: two `pnpm migrate` at once apply every migration once, into one table', async () => {
    const db = await database();
    const known = await setsMigrations(enginesSets('postgres'));
    const runs = await twoMigrateRuns(db.ownerUrl);
    expect(runs.flat()).toEqual(known);
    // Ordered by timestamp across the sets: the audit trail's come first.
    expect(known[0]).toMatch(/_audit-trail$/);
    expect((await recorded(db.ownerUrl, MIGRATIONS_TABLE)).map((r) => r.name)).toEqual(known);
    expect(await relkinds(db.ownerUrl)).toEqual([
      'card_console_migrations:r',
      'index_migrations:v',
      'pgmigrations:v',
    ]);
    const audit = await connectPostgresAudit({ url: db.appUrl, logger: silentLogger });
    await audit.close();
    // An older build refuses it, as a newer build's, instead of migrating it again.
    const said = await olderBuildSays(db.appUrl);
    for (const message of said)
      expect(message).toMatch(/is newer than this build: it has .*one-migrations-table/);
  }, 120_000);

  it("an older build's database: its two tables' rows are moved once (same names and times), nothing applied twice", async () => {
    const db = await database();
    const owner = postgresEngine(new pg.Pool({ connectionString: db.ownerUrl, max: 1 }));
    let before: string[];
    try {
      before = await migrateAsOlderBuild(owner, ['audit-trail', 'transaction-index'], 1);
    } finally {
      await owner.close();
    }
    const old = [
      ...(await recorded(db.ownerUrl, 'pgmigrations')),
      ...(await recorded(db.ownerUrl, 'index_migrations')),
    ];
    expect(old.map((r) => r.name)).toEqual(before);
    // A replica of this build on it before `pnpm migrate`: says to run it.
    const refused = await connectPostgresAudit({ url: db.appUrl, logger: silentLogger }).catch(
      (error: Error) => error,
    );
    expect((refused as Error).message).toMatch(
      /recorded as builds before this one kept them \(pgmigrations, index_migrations\): run `pnpm migrate`/,
    );

    const known = await setsMigrations(enginesSets('postgres'));
    const runs = await twoMigrateRuns(db.ownerUrl);
    expect(runs.flat()).toEqual(known.filter((name) => !before.includes(name)));
    expect(runs.flat().length).toBeGreaterThanOrEqual(2);
    const rows = await recorded(db.ownerUrl, MIGRATIONS_TABLE);
    expect(rows.slice(0, old.length)).toEqual(old);
    expect(rows.map((r) => r.name)).toEqual(known);
    expect(await relkinds(db.ownerUrl)).toEqual([
      'card_console_migrations:r',
      'index_migrations:v',
      'pgmigrations:v',
    ]);
    // The BFF's login reads the one table (the writer roles' grants moved with it).
    const audit = await connectPostgresAudit({ url: db.appUrl, logger: silentLogger });
    await audit.close();
    for (const message of await olderBuildSays(db.appUrl)) {
      expect(message).toMatch(/is newer than this build/);
    }
  }, 120_000);
});
