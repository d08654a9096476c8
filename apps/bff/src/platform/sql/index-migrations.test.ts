// The embedded engine migrates itself when it opens (one process, no set-up), but never a
// DATA_DIR a newer build migrated: it refuses before changing anything, naming both versions.
// A DATA_DIR an older build migrated (its own index_migrations table) is moved to the one table.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../test/audit-cluster';
import { migrateAsOlderBuild } from '../../test/engines/older-build-migrations';
import { applyIndexMigrations } from './index-migrations';
import { MIGRATIONS_TABLE, setsMigrations } from './migrations';
import { embeddedEngine } from './sql-engine';

describe('the index migrations on the embedded engine', () => {
  it('apply what is missing, then refuse a schema a newer build migrated', async () => {
    const engine = await embeddedEngine();
    try {
      const known = await setsMigrations(['transaction-index']);
      expect(await applyIndexMigrations(engine, silentLogger)).toEqual(known);
      expect(await applyIndexMigrations(engine, silentLogger)).toEqual([]);
      const rows = await engine.query<{ name: string }>(
        `SELECT name FROM ${MIGRATIONS_TABLE} ORDER BY id`,
      );
      expect(rows.map((r) => r.name)).toEqual(known);
      await engine.query(
        `INSERT INTO ${MIGRATIONS_TABLE} (name, run_on) VALUES ('99991231000000000_from-a-newer-build', now())`,
      );
      await expect(applyIndexMigrations(engine, silentLogger)).rejects.toThrow(
        `The database's schema in DATA_DIR is newer than this build: it has 99991231000000000_from-a-newer-build, and the newest migration this build knows is ${known.at(-1)}`,
      );
    } finally {
      await engine.close();
    }
  }, 60_000);

  it('refuse a migration of the set missing before one applied (out of order), applying nothing', async () => {
    const engine = await embeddedEngine();
    try {
      const known = await setsMigrations(['transaction-index']);
      await applyIndexMigrations(engine, silentLogger);
      const [gap, after] = known.slice(-3, -1);
      await engine.query(`DELETE FROM ${MIGRATIONS_TABLE} WHERE name = $1`, [gap]);
      await expect(applyIndexMigrations(engine, silentLogger)).rejects.toThrow(
        `The database's schema in DATA_DIR has ${after} applied but not ${gap}, which comes before it`,
      );
      const rows = await engine.query(`SELECT name FROM ${MIGRATIONS_TABLE}`);
      expect(rows).toHaveLength(known.length - 1);
    } finally {
      await engine.close();
    }
  }, 60_000);

  it("moves an older build's DATA_DIR to the one table at open: same names and times, nothing applied twice", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cc-older-data-'));
    try {
      const old = await embeddedEngine(dir);
      const before = await migrateAsOlderBuild(old, ['transaction-index'], 1);
      const recorded = await old.query<{ name: string; run_on: Date }>(
        'SELECT name, run_on FROM index_migrations ORDER BY run_on, id',
      );
      await old.close();

      const engine = await embeddedEngine(dir);
      try {
        const known = await setsMigrations(['transaction-index']);
        const applied = await applyIndexMigrations(engine, silentLogger);
        // The one the older build had not applied yet, and this build's own: nothing twice.
        expect(applied).toEqual(known.filter((name) => !before.includes(name)));
        expect(applied.length).toBeGreaterThanOrEqual(2);
        const rows = await engine.query<{ name: string; run_on: Date }>(
          `SELECT name, run_on FROM ${MIGRATIONS_TABLE} ORDER BY run_on, id`,
        );
        expect(rows.slice(0, recorded.length)).toEqual(recorded);
        expect(rows.map((r) => r.name)).toEqual(known);
        // What an older build reads there now: this build's migrations, newer than any it knew.
        const kinds = await engine.query<{ relname: string; relkind: string }>(
          "SELECT relname, relkind FROM pg_class WHERE relname IN ('index_migrations', 'pgmigrations') ORDER BY relname",
        );
        expect(kinds).toEqual([
          { relname: 'index_migrations', relkind: 'v' },
          { relname: 'pgmigrations', relkind: 'v' },
        ]);
        const seen = await engine.query<{ name: string }>(
          'SELECT name FROM index_migrations ORDER BY run_on, id',
        );
        expect(seen.map((r) => r.name)).toEqual(known);
        expect(await applyIndexMigrations(engine, silentLogger)).toEqual([]);
      } finally {
        await engine.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true, maxRetries: 5 });
    }
  }, 60_000);
});
