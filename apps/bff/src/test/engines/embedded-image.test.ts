// The tests' embedded engines start from images shared by every engine of a worker
// (`embedded.ts`): what one engine writes must never reach the image the next one starts from.
import { describe, expect, it } from 'vitest';
import type { SqlEngine } from '../../platform/sql/sql-engine';
import { memoryEngine, migratedMemoryEngine } from './embedded';

describe('the engines started from an image', () => {
  it.each([
    ['with the migrations applied', migratedMemoryEngine],
    ['empty', () => memoryEngine()],
  ])('%s: each starts as the image holds it, whatever the one before wrote', async (_, open) => {
    const tables = async (engine: SqlEngine) =>
      (
        await engine.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM pg_class WHERE relname = $1',
          ['written_by_the_first'],
        )
      )[0]?.n;
    const first = await open();
    expect(await tables(first)).toBe(0);
    // A new table (new files, and rows in the catalog's existing files), written to its files.
    await first.query('CREATE TABLE written_by_the_first (id int PRIMARY KEY)');
    await first.query('INSERT INTO written_by_the_first SELECT generate_series(1, 1000)');
    await first.query('CHECKPOINT');
    expect(await tables(first)).toBe(1);
    await first.close();

    const second = await open();
    try {
      expect(await tables(second)).toBe(0);
    } finally {
      await second.close();
    }
  });
});
