import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asSuperuser, silentLogger } from '../../test/audit-cluster';
import { type PostgresEngine, startPostgres } from '../../test/engines/postgres';
import { TransactionIndexStore } from './index-store';
import { INDEX_WRITER_ROLE, IndexSetupError, openPostgresIndex } from './postgres-index';

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

describe('the transaction index on PostgreSQL, as start-up opens it', () => {
  it('applies its migrations as the owner, then works as a login granted the writer role', async () => {
    const db = await fresh();
    // The first start creates the role; the operator grants it (as for the audit trail).
    await expect(
      openPostgresIndex({ url: db.appUrl, migrationUrl: db.ownerUrl, logger: silentLogger }),
    ).rejects.toThrow(new RegExp(`grant it ${INDEX_WRITER_ROLE}`));
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
      expect(await store.summary({})).toEqual({ count: 1, debitCents: 5, creditCents: 0 });
    } finally {
      await engine.close();
    }
  }, 60_000);

  it('without DATABASE_MIGRATION_URL on a database without its schema, says to set it', async () => {
    const db = await fresh();
    const error = await openPostgresIndex({ url: db.appUrl, logger: silentLogger }).catch((e) => e);
    expect(error).toBeInstanceOf(IndexSetupError);
    expect(error.message).toMatch(/not in .*DATABASE_MIGRATION_URL/s);
    expect(error.message).not.toContain(db.appUrl.split('@')[0]?.split(':').at(-1));
  }, 60_000);
});
