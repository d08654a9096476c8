import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TransactionIndexStore } from '../../features/transaction-index';
import { knownMigrations } from '../../platform/audit/audit-schema';
import { asSuperuser, silentLogger } from '../../test/audit-cluster';
import { type PostgresEngine, startPostgres } from '../../test/engines/postgres';
import { applyIndexMigrations, indexMigrationsDir } from './index-migrations';
import {
  assertIndexSchemaCurrent,
  INDEX_WRITER_ROLE,
  IndexSetupError,
  openPostgresIndex,
} from './open-postgres';
import { postgresEngine } from './sql-engine';

let cluster: PostgresEngine;
let counter = 0;
beforeAll(async () => {
  cluster = await startPostgres();
}, 60_000);
afterAll(() => cluster?.destroy());

/** A database and a login of the BFF's own, not yet granted the index's writer role. */
async function fresh() {
  const name = `cc_index_${counter++}`;
  const ownerUrl = await cluster.createDatabase(name);
  const login = `cc_index_bff_${counter}`;
  const password = randomBytes(12).toString('base64url');
  await asSuperuser(cluster.adminUrl, `CREATE ROLE ${login} LOGIN PASSWORD '${password}'`);
  return {
    ownerUrl,
    appUrl: cluster.urlFor(name, login, password),
    grant: () => asSuperuser(cluster.adminUrl, `GRANT ${INDEX_WRITER_ROLE} TO ${login}`),
  };
}

/** `pnpm migrate`'s part for the index, as the owner. */
async function migrate(ownerUrl: string): Promise<string[]> {
  const owner = postgresEngine(new pg.Pool({ connectionString: ownerUrl, max: 1 }));
  try {
    return await applyIndexMigrations(owner, silentLogger);
  } finally {
    await owner.close();
  }
}

describe('the transaction index on PostgreSQL, as start-up opens it', () => {
  it('works as a login granted the writer role on the schema the owner migrated', async () => {
    const db = await fresh();
    // The migrations create the role; the operator grants it (as for the audit trail).
    await migrate(db.ownerUrl);
    await expect(openPostgresIndex({ url: db.appUrl, logger: silentLogger })).rejects.toThrow(
      new RegExp(`grant it ${INDEX_WRITER_ROLE}`),
    );
    await db.grant();
    const engine = await openPostgresIndex({ url: db.appUrl, logger: silentLogger });
    try {
      const store = new TransactionIndexStore(engine);
      await store.replaceDay(
        'sa',
        '2026-10-01',
        [
          {
            id: 't',
            at: '2026-10-01T09:00:00.000Z',
            description: 'x',
            referenceNumber: 'r',
            amountCents: -5,
            status: 'settled',
          },
        ],
        Date.UTC(2026, 9, 1),
      );
      expect(await store.summary({})).toMatchObject({ count: 1, posted: { count: 1, cents: -5 } });
    } finally {
      await engine.close();
    }
  }, 60_000);

  it('on a database without its schema, says to run `pnpm migrate`', async () => {
    const db = await fresh();
    const error = await openPostgresIndex({ url: db.appUrl, logger: silentLogger }).catch((e) => e);
    expect(error).toBeInstanceOf(IndexSetupError);
    expect(error.message).toMatch(/not in .*run `pnpm migrate`/s);
    expect(error.message).not.toContain(db.appUrl.split('@')[0]?.split(':').at(-1));
  }, 60_000);

  it('refuses a schema a newer build migrated (start-up, first use and `pnpm migrate`), and one behind', async () => {
    const db = await fresh();
    await migrate(db.ownerUrl);
    await db.grant();
    const pool = new pg.Pool({ connectionString: db.appUrl, max: 1 });
    try {
      await assertIndexSchemaCurrent(pool);
      const newest = (await knownMigrations(indexMigrationsDir())).at(-1);
      await asSuperuser(
        db.ownerUrl,
        "INSERT INTO index_migrations (name, run_on) VALUES ('99991231000000000_from-a-newer-build', now())",
      );
      const newer = `newer than this build: it has 99991231000000000_from-a-newer-build, and the newest migration this build knows is ${newest}`;
      await expect(assertIndexSchemaCurrent(pool)).rejects.toThrow(newer);
      await expect(openPostgresIndex({ url: db.appUrl, logger: silentLogger })).rejects.toThrow(
        newer,
      );
      await expect(migrate(db.ownerUrl)).rejects.toThrow(/newer than this build/);

      await asSuperuser(db.ownerUrl, 'DELETE FROM index_migrations WHERE name > $1', [
        newest === undefined ? '' : newest.slice(0, 17),
      ]);
      await expect(assertIndexSchemaCurrent(pool)).rejects.toThrow(
        new RegExp(`behind this build \\(not applied: ${newest}\\): run \`pnpm migrate\``),
      );
    } finally {
      await pool.end();
    }
  }, 60_000);
});
