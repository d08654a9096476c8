// A database as builds before the one migrations table left it: node-pg-migrate applied each
// set with the files of then (granting the writer roles the set's own table) and recorded it in
// a table of its own: the audit trail's in pgmigrations, the index's in index_migrations.
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runner } from 'node-pg-migrate';
import {
  LEGACY_MIGRATIONS_TABLES,
  MIGRATIONS_TABLE,
  type MigrationSet,
  setDir,
} from '../../platform/sql/migrations';
import type { SqlEngine } from '../../platform/sql/sql-engine';

/** The first migration of the one table: older builds knew only those before it. */
const ONE_TABLE = '20261129150000000';

/** The migrations an older build knew of `set`. */
export async function olderBuildMigrations(set: MigrationSet): Promise<string[]> {
  return (await readdir(setDir(set)))
    .filter((name) => name.endsWith('.sql') && name < ONE_TABLE)
    .map((name) => name.slice(0, -'.sql'.length))
    .sort();
}

/**
 * Applies `sets` as an older build did, on `engine`, leaving out the newest `pending` index
 * migrations it knew (a database one upgrade behind); returns the names applied.
 */
export async function migrateAsOlderBuild(
  engine: SqlEngine,
  sets: readonly MigrationSet[],
  pending = 0,
): Promise<string[]> {
  const applied: string[] = [];
  for (const set of sets) {
    const table = set === 'audit-trail' ? LEGACY_MIGRATIONS_TABLES[0] : LEGACY_MIGRATIONS_TABLES[1];
    const dir = await mkdtemp(join(tmpdir(), 'cc-older-build-'));
    try {
      const names = await olderBuildMigrations(set);
      const kept = set === 'transaction-index' ? names.slice(0, names.length - pending) : names;
      for (const name of kept) {
        const sql = await readFile(join(setDir(set), `${name}.sql`), 'utf8');
        await writeFile(join(dir, `${name}.sql`), sql.replaceAll(MIGRATIONS_TABLE, table));
      }
      const run = await engine.withMigrationClient((dbClient) =>
        runner({
          dbClient: dbClient as never,
          dir,
          migrationsTable: table,
          direction: 'up',
          singleTransaction: true,
          noLock: engine.kind === 'embedded',
          logger: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
        }),
      );
      applied.push(...run.map((m) => m.name));
    } finally {
      await rm(dir, { recursive: true, force: true, maxRetries: 5 });
    }
  }
  return applied;
}
