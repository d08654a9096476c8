// The embedded engine migrates itself when it opens (one process, no set-up), but never a
// DATA_DIR a newer build migrated: it refuses before changing anything, naming both versions.
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../test/audit-cluster';
import { knownMigrations } from '../audit/audit-schema';
import { applyIndexMigrations, indexMigrationsDir } from './index-migrations';
import { embeddedEngine } from './sql-engine';

describe('the index migrations on the embedded engine', () => {
  it('apply what is missing, then refuse a schema a newer build migrated', async () => {
    const engine = await embeddedEngine();
    try {
      const known = await knownMigrations(indexMigrationsDir());
      expect(await applyIndexMigrations(engine, silentLogger)).toEqual(known);
      expect(await applyIndexMigrations(engine, silentLogger)).toEqual([]);
      await engine.query(
        "INSERT INTO index_migrations (name, run_on) VALUES ('99991231000000000_from-a-newer-build', now())",
      );
      await expect(applyIndexMigrations(engine, silentLogger)).rejects.toThrow(
        `The transaction index's schema in DATA_DIR is newer than this build: it has 99991231000000000_from-a-newer-build, and the newest migration this build knows is ${known.at(-1)}`,
      );
    } finally {
      await engine.close();
    }
  }, 60_000);
});
