// The `alert-limits` migration over rules saved before identical ones were refused: the oldest
// of each set of identical rules is held by the new index, the later ones are kept as they are
// (`kept_duplicate`), and rules that differ are untouched; the outbox takes `folded` after it.
import { readdir } from 'node:fs/promises';
import { runner } from 'node-pg-migrate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INDEX_MIGRATIONS_TABLE, indexMigrationsDir } from '../../platform/sql/index-migrations';
import type { SqlEngine } from '../../platform/sql/sql-engine';
import { memoryEngine } from '../../test/engines/embedded';

const MIGRATION = 'alert-limits';

async function migrate(engine: SqlEngine, count?: number) {
  await engine.withMigrationClient((dbClient) =>
    runner({
      dbClient: dbClient as never,
      dir: indexMigrationsDir(),
      migrationsTable: INDEX_MIGRATIONS_TABLE,
      direction: 'up',
      ...(count === undefined ? {} : { count }),
      singleTransaction: true,
      noLock: true,
      log: () => {},
    }),
  );
}

describe('the alert-limits migration', () => {
  let engine: SqlEngine;
  beforeAll(async () => {
    engine = await memoryEngine();
    const files = (await readdir(indexMigrationsDir())).filter((f) => f.endsWith('.sql')).sort();
    const before = files.findIndex((f) => f.endsWith(`_${MIGRATION}.sql`));
    expect(before).toBeGreaterThan(0);
    await migrate(engine, before);
  }, 60_000);
  afterAll(() => engine?.close());

  it('keeps the later of identical rules saved before it as they are, and holds the rest', async () => {
    const rule = (id: string, minute: number, owner: string | null, amount: number, name = id) =>
      engine.query(
        `INSERT INTO alert_rule (id, owner_email, name, kind, amount_cents, channel_inbox,
           channel_email, created_by, created_at, updated_by, updated_at)
         VALUES ($1, $2, $3, 'amount_above', $4, true, false, 'x', $5, 'x', $5)`,
        [id, owner, name, amount, new Date(Date.UTC(2026, 10, 27, 9, minute)).toISOString()],
      );
    await rule('a1', 1, 'ana@example.test', 100);
    await rule('a2', 2, 'ana@example.test', 100, 'Same again');
    await rule('a3', 3, 'ana@example.test', 100);
    await rule('a4', 4, 'ana@example.test', 200);
    await rule('b1', 5, 'bo@example.test', 100);
    await rule('t1', 6, null, 100);
    await rule('t2', 7, null, 100);
    await migrate(engine);
    const rows = await engine.query<{ id: string; kept_duplicate: boolean }>(
      'SELECT id, kept_duplicate FROM alert_rule ORDER BY id',
    );
    expect(rows.map((r) => [r.id, r.kept_duplicate])).toEqual([
      ['a1', false],
      ['a2', true],
      ['a3', true],
      ['a4', false],
      ['b1', false],
      ['t1', false],
      ['t2', true],
    ]);
    await expect(rule('a5', 8, 'ana@example.test', 100)).rejects.toMatchObject({
      code: '23505',
      constraint: 'alert_rule_identical',
    });
    await engine.query(
      `INSERT INTO alert_delivery (key, rule_id, channel, recipient, state, created_at,
         next_attempt_at) VALUES ('k', 'a1', 'email', 'ana@example.test', 'folded', now(), now())`,
    );
  });
});
