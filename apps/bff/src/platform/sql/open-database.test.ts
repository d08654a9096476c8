// The database opens at its first statement, migrated and seeded once; a failed open is tried
// again at the next use, and a close lets the next use open it afresh.
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../test/audit-cluster';
import { openDatabase } from './open-database';
import { embeddedEngine, type SqlEngine } from './sql-engine';

describe('the database platform/sql opens', () => {
  it('opens, migrates and seeds once at the first statement, and says when it is open', async () => {
    let opened = 0;
    const seeded: SqlEngine[] = [];
    const db = openDatabase({
      open: async () => {
        opened++;
        return embeddedEngine();
      },
      logger: silentLogger,
      onFirstOpen: async (engine) => {
        seeded.push(engine);
        // The seed runs on the migrated schema.
        await engine.query('SELECT count(*) FROM index_transaction');
      },
    });
    try {
      expect(db.sql.kind).toBe('embedded');
      expect(db.isOpen()).toBe(false);
      expect(opened).toBe(0);
      const [rows, engine] = await Promise.all([
        db.sql.query<{ n: number }>('SELECT 1 AS n'),
        db.whenOpen(),
      ]);
      expect(rows).toEqual([{ n: 1 }]);
      expect(db.isOpen()).toBe(true);
      expect(await db.whenOpen()).toBe(engine);
      expect(opened).toBe(1);
      expect(seeded).toEqual([engine]);
    } finally {
      await db.close();
    }
    expect(db.isOpen()).toBe(false);
  }, 60_000);

  it('tries a failed open again at the next use, and closes the engine a failed seed leaves', async () => {
    let tries = 0;
    let closed = 0;
    const db = openDatabase({
      open: async () => {
        tries++;
        if (tries === 1) throw new Error('database down');
        const engine = await embeddedEngine();
        return {
          ...engine,
          close: async () => {
            closed++;
            await engine.close();
          },
        };
      },
      migrate: false,
      kind: 'postgres',
      logger: silentLogger,
      onFirstOpen: async () => {
        if (tries === 2) throw new Error('seed failed');
      },
    });
    expect(db.sql.kind).toBe('postgres');
    await expect(db.sql.query('SELECT 1')).rejects.toThrow('database down');
    expect(db.isOpen()).toBe(false);
    await expect(db.whenOpen()).rejects.toThrow('seed failed');
    expect(closed).toBe(1);
    expect(db.isOpen()).toBe(false);
    // Not migrated: only what the engine itself has.
    expect(
      await db.sql.query<{ absent: boolean }>(
        "SELECT to_regclass('index_transaction') IS NULL AS absent",
      ),
    ).toEqual([{ absent: true }]);
    expect(tries).toBe(3);
    expect(db.isOpen()).toBe(true);
    await db.close();
    expect(closed).toBe(2);
    // Closed, the next use opens it afresh.
    expect(await db.sql.query<{ n: number }>('SELECT 3 AS n')).toEqual([{ n: 3 }]);
    expect(tries).toBe(4);
    await db.close();
    expect(closed).toBe(3);
  }, 60_000);
});
