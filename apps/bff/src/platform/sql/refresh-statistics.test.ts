// The embedded engine refreshes the planner's statistics of the tables it is told, and of no
// other: a sync's writes analyze the tables they grow, not every table of the database (1.3 of a
// demo's first sync's ~7 CPU s, against 0.65 for the tables it writes).
import { afterEach, describe, expect, it } from 'vitest';
import { memoryEngine } from '../../test/engines/embedded';
import type { SqlEngine } from './sql-engine';

let engine: SqlEngine | undefined;
afterEach(async () => {
  await engine?.close();
  engine = undefined;
});

/** Rows the planner takes each table to hold: -1 for a table never analyzed. */
async function estimates(db: SqlEngine): Promise<Record<string, number>> {
  const rows = await db.query<{ name: string; rows: number }>(
    `SELECT relname AS name, reltuples::int AS rows FROM pg_class
      WHERE relname IN ('grown', 'left_alone') AND relkind = 'r'`,
  );
  return Object.fromEntries(rows.map((r) => [r.name, r.rows]));
}

describe("the embedded engine's statistics", () => {
  it('are refreshed for the tables named, and no other', async () => {
    engine = await memoryEngine();
    for (const table of ['grown', 'left_alone']) {
      await engine.query(`CREATE TABLE ${table} (id int PRIMARY KEY, label text)`);
      await engine.query(
        `INSERT INTO ${table} SELECT i, 'row ' || i FROM generate_series(1, 1500) AS i`,
      );
    }
    expect(await estimates(engine)).toEqual({ grown: -1, left_alone: -1 });

    await engine.refreshStatistics(['grown']);
    expect(await estimates(engine)).toEqual({ grown: 1500, left_alone: -1 });

    await engine.refreshStatistics([]);
    expect(await estimates(engine)).toEqual({ grown: 1500, left_alone: -1 });
  });

  it("refuses what is not a table's name, and analyzes nothing", async () => {
    engine = await memoryEngine();
    await engine.query('CREATE TABLE grown (id int)');
    await engine.query('INSERT INTO grown SELECT generate_series(1, 10)');
    await expect(engine.refreshStatistics(['grown; DROP TABLE grown'])).rejects.toThrow(
      /not a table's name/,
    );
    await expect(engine.refreshStatistics(['Grown'])).rejects.toThrow(/not a table's name/);
    expect(await estimates(engine)).toEqual({ grown: -1 });
  });
});
