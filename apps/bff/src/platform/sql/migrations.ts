// Every schema the BFF keeps in SQL, under one runner and one table (card_console_migrations).
// Two sets of SQL files in apps/bff/migrations, applied by node-pg-migrate in the order of their
// timestamps across both: the audit trail's (the folder itself; PostgreSQL only, since the
// embedded engine keeps its trail in a JSONL file) and the transaction index's with the rest
// beside it (transaction-index/, both engines). On PostgreSQL `pnpm migrate` applies them as the
// schema owner; the embedded engine, one process, applies its set itself when it opens.
//
// Builds before this one recorded each set in a table of its own (pgmigrations, index_migrations):
// the first run of this one moves their rows here, and a migration of its own leaves two views of
// this table under their names, where an older build reads a migration newer than it knows and
// refuses the database instead of applying its migrations again.
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PG_MIGRATE_LOCK_ID, runner } from 'node-pg-migrate';
import type { Logger } from 'pino';
import {
  appliedMigrations,
  type MigrationMismatch,
  migrationMismatch,
  migrationOrder,
  RUN_MIGRATE,
} from '../migrations/migration-versions';
import type { MigrationClient, SqlEngine } from './sql-engine';

export const MIGRATIONS_TABLE = 'card_console_migrations';
/** Where builds before this one recorded the audit trail's and the index's migrations. */
export const LEGACY_MIGRATIONS_TABLES = ['pgmigrations', 'index_migrations'] as const;

/** This build may not migrate the database (a newer build did); the message says why. */
export class MigrationRefusedError extends Error {
  override name = 'MigrationRefusedError';
}

/** A statement's rows, on whatever connection the caller holds. */
export type ReadRows = (sql: string) => Promise<readonly Record<string, unknown>[]>;

export type MigrationSet = 'audit-trail' | 'transaction-index';

/** The sets an engine holds: the embedded engine's audit trail is a file, not SQL. */
export function enginesSets(kind: SqlEngine['kind']): MigrationSet[] {
  return kind === 'postgres' ? ['audit-trail', 'transaction-index'] : ['transaction-index'];
}

/**
 * apps/bff/migrations, found from this module's place: src/platform/sql under tsx, dist/ in the
 * bundle `pnpm start` runs.
 */
export function migrationsDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'migrations');
    if (existsSync(join(dir, 'package.json')) && existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('apps/bff/migrations not found');
    dir = parent;
  }
}

export function setDir(set: MigrationSet): string {
  return set === 'audit-trail' ? migrationsDir() : join(migrationsDir(), set);
}

/** A folder's migrations, in the order node-pg-migrate applies them. */
export async function knownMigrations(dir = migrationsDir()): Promise<string[]> {
  return (await readdir(dir))
    .filter((name) => name.endsWith('.sql') && !name.startsWith('.'))
    .map((name) => name.slice(0, -'.sql'.length))
    .sort(migrationOrder);
}

/** The migrations of `sets`, in the order the runner applies them (timestamps across sets). */
export async function setsMigrations(sets: readonly MigrationSet[]): Promise<string[]> {
  const names = await Promise.all(sets.map((set) => knownMigrations(setDir(set))));
  return names.flat().sort(migrationOrder);
}

/**
 * Whether the database differs from this build for `sets` (behind, or migrated by a newer
 * build); `where` names the database in the message. A name of any set this build knows is
 * never taken for a newer build's.
 */
export async function schemaMismatch(
  run: ReadRows,
  sets: readonly MigrationSet[],
  where: string,
): Promise<MigrationMismatch | undefined> {
  const applied = await appliedMigrations(run, MIGRATIONS_TABLE);
  if (applied.length === 0 && (await legacyTables(run)).length > 0) {
    return {
      behind: true,
      message: `The database's migrations in ${where} are recorded as builds before this one kept them (${LEGACY_MIGRATIONS_TABLES.join(', ')}): ${RUN_MIGRATE}.`,
    };
  }
  const wanted = await Promise.all(sets.map((set) => knownMigrations(setDir(set))));
  const others = (
    await Promise.all(
      (['audit-trail', 'transaction-index'] as const)
        .filter((set) => !sets.includes(set))
        .map((set) => knownMigrations(setDir(set))),
    )
  ).flat();
  const mismatch = migrationMismatch(
    'database',
    where,
    wanted.flat(),
    [...new Set(applied)].filter((name) => !others.includes(name)),
  );
  if (mismatch && !mismatch.behind) return mismatch;
  // As node-pg-migrate's checkOrder, within each set: a migration added before one applied.
  for (const known of wanted) {
    const gap = known.findIndex((name) => !applied.includes(name));
    const after = known.slice(gap + 1).find((name) => applied.includes(name));
    if (gap >= 0 && after) {
      return {
        behind: false,
        message: `The database's schema in ${where} has ${after} applied but not ${known[gap]}, which comes before it: a migration was added behind one already applied, and nothing is applied out of order.`,
      };
    }
  }
  return mismatch;
}

/**
 * Migration names as the log writes them: each 17-digit timestamp split after its day
 * (`20261126-120000000_transaction-index`), so that no run of 13–19 digits in the log can read as
 * a card number to a scanner (`secrets.test.ts`, or a log pipeline's own).
 */
export function loggedMigrationNames(text: string): string {
  return text.replace(/\b(\d{8})(\d{9})(?=_)/g, '$1-$2');
}

/**
 * Applies what `sets` (by default all the engine holds) are missing, in one transaction, and
 * returns the names applied. On PostgreSQL everything happens under node-pg-migrate's advisory
 * lock, so two runs at once queue and the later finds nothing to do. A database a newer build
 * migrated is refused before anything runs.
 */
export async function applyMigrations(
  engine: SqlEngine,
  logger: Pick<Logger, 'info' | 'error'>,
  options: { sets?: readonly MigrationSet[]; where?: string } = {},
): Promise<string[]> {
  const sets = options.sets ?? enginesSets(engine.kind);
  const where =
    options.where ?? (engine.kind === 'embedded' ? 'DATA_DIR' : 'DATABASE_MIGRATION_URL');
  const log = (message: string) =>
    logger.info({ migrations: sets.join(',') }, loggedMigrationNames(message));
  const locked = engine.kind === 'postgres';
  return engine.withMigrationClient(async (client) => {
    if (locked) await client.query(`SELECT pg_advisory_lock(${PG_MIGRATE_LOCK_ID})`);
    try {
      await moveLegacyTables(client);
      const read = async (sql: string) => (await client.query(sql)).rows;
      const mismatch = await schemaMismatch(read, sets, where);
      if (mismatch && !mismatch.behind) throw new MigrationRefusedError(mismatch.message);
      const applied = await runner({
        dbClient: client as never,
        dir: sets.map((set) => join(setDir(set), '*.sql')),
        useGlob: true,
        migrationsTable: MIGRATIONS_TABLE,
        direction: 'up',
        // Within each set, above: the embedded engine holds one set, PostgreSQL two.
        checkOrder: false,
        singleTransaction: true,
        noLock: true,
        logger: {
          debug: () => {},
          info: log,
          warn: log,
          error: (m: string) => logger.error(loggedMigrationNames(m)),
        },
      });
      return applied.map((m) => m.name);
    } finally {
      // A failed unlock is a connection gone, which released the lock; the cause is thrown.
      if (locked)
        await client.query(`SELECT pg_advisory_unlock(${PG_MIGRATE_LOCK_ID})`).catch(() => {});
    }
  });
}

async function legacyTables(run: ReadRows): Promise<string[]> {
  const rows = await run(
    `SELECT relname FROM pg_class WHERE relkind = 'r' AND oid IN (${LEGACY_MIGRATIONS_TABLES.map((t) => `to_regclass('${t}')`).join(', ')})`,
  );
  return rows.map((row) => String(row.relname));
}

/**
 * A database an older build migrated: its two tables' rows (same names, same run_on, in the
 * order they ran) into the one table, the two tables dropped, the writer roles granted to read
 * it, all in one statement, so all or nothing. Nothing to do once moved (the names are views).
 */
async function moveLegacyTables(client: MigrationClient): Promise<void> {
  await client.query(`DO $$
DECLARE
  legacy text[] := ARRAY(SELECT relname::text FROM pg_class WHERE relkind = 'r'
    AND oid IN (to_regclass('pgmigrations'), to_regclass('index_migrations')) ORDER BY relname DESC);
  reader text;
BEGIN
  IF cardinality(legacy) = 0 THEN RETURN; END IF;
  CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (id SERIAL PRIMARY KEY, name varchar(255) NOT NULL, run_on timestamp NOT NULL);
  EXECUTE 'INSERT INTO ${MIGRATIONS_TABLE} (name, run_on) SELECT name, run_on FROM ('
    || (SELECT string_agg(format('SELECT name, run_on, %s AS kept, id FROM %I', i, legacy[i]), ' UNION ALL ')
        FROM generate_subscripts(legacy, 1) AS i)
    || ') AS old WHERE name NOT IN (SELECT name FROM ${MIGRATIONS_TABLE}) ORDER BY run_on, kept, id';
  EXECUTE (SELECT 'DROP TABLE ' || string_agg(format('%I', t), ', ') FROM unnest(legacy) AS t);
  FOREACH reader IN ARRAY ARRAY['card_console_audit_writer', 'card_console_index_writer'] LOOP
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = reader) THEN
      EXECUTE format('GRANT SELECT ON ${MIGRATIONS_TABLE} TO %I', reader);
    END IF;
  END LOOP;
END
$$`);
}
