import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyIndexMigrations } from '../../platform/sql/index-migrations';
import { INDEX_WRITER_ROLE } from '../../platform/sql/open-postgres';
import { postgresEngine } from '../../platform/sql/sql-engine';
import { asSuperuser, silentLogger } from '../../test/audit-cluster';
import { testDatabase } from '../../test/engines/postgres';
import { alertLimitsContract } from './alert-limits.contract';
import { AlertStore } from './alert-store';
import { alertStoreContract } from './alert-store.contract';

let database: Awaited<ReturnType<typeof testDatabase>>;
beforeAll(async () => {
  database = await testDatabase();
}, 60_000);
afterAll(() => database?.stop());

// Two pools on one database, as two replicas would have.
alertStoreContract('PostgreSQL', async () => {
  const engine = postgresEngine(new pg.Pool({ connectionString: database.url, max: 8 }));
  const second = postgresEngine(new pg.Pool({ connectionString: database.url, max: 8 }));
  await applyIndexMigrations(engine, silentLogger);
  return {
    engine,
    second,
    close: async () => {
      await Promise.all([engine.close(), second.close()]);
    },
  };
});

alertLimitsContract('PostgreSQL', async () => {
  const engine = postgresEngine(new pg.Pool({ connectionString: database.url, max: 8 }));
  const second = postgresEngine(new pg.Pool({ connectionString: database.url, max: 8 }));
  await applyIndexMigrations(engine, silentLogger);
  return {
    engine,
    second,
    close: async () => {
      await Promise.all([engine.close(), second.close()]);
    },
  };
});

describe('the alert store on PostgreSQL, as the BFF’s own login', () => {
  it('does all it does with only the index writer’s grants, deleting a rule that raised alerts too', async () => {
    const login = `cc_alerts_${randomBytes(6).toString('hex')}`;
    const password = randomBytes(12).toString('base64url');
    await asSuperuser(
      database.url,
      `CREATE ROLE ${login} LOGIN PASSWORD '${password}' IN ROLE ${INDEX_WRITER_ROLE}`,
    );
    const url = new URL(database.url);
    url.username = login;
    url.password = password;
    const engine = postgresEngine(new pg.Pool({ connectionString: url.toString(), max: 2 }));
    try {
      const store = new AlertStore(engine);
      const at = new Date(Date.UTC(2026, 10, 27, 9));
      const base = { kind: 'declined', name: 'Declines', channels: { inbox: true, email: false } };
      const rule = await store.createRule(base, 'grants@example.test', at);
      const changed = await store.updateRule(
        rule.id,
        1,
        { ...base, name: 'D' },
        'grants@example.test',
        at,
      );
      const [raised] = await store.raise(
        [
          {
            ruleId: rule.id,
            idempotencyKey: `${rule.id}:t1`,
            payload: {
              kind: 'declined',
              ruleName: 'D',
              subAccount: { id: 'sa' },
              transaction: {
                id: 't1',
                at: at.toISOString(),
                amountCents: -1,
                status: 'declined',
                description: 'x',
              },
            },
          },
        ],
        { at, teamRecipients: [] },
      );
      expect(await store.unreadCount('grants@example.test')).toBe(1);
      expect(await store.markRead('grants@example.test', 'all', at)).toBe(1);
      await store.deleteRule(rule.id, changed.version);
      const { items } = await store.inbox('grants@example.test');
      expect(items.map((i) => [i.alertId, i.ruleId])).toEqual([[raised?.id, null]]);
    } finally {
      await engine.close();
    }
  });
});
