import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AuditTestCluster,
  asSuperuser,
  auditTestCluster,
  silentLogger,
} from '../../test/audit-cluster';
import { type Metrics, noMetrics } from '../metrics/metrics';
import { auditStoreContract } from './audit-store.contract';
import { connectPostgresAudit, type PostgresAudit } from './postgres-audit';
import { listQuery } from './postgres-audit-store';

let cluster: AuditTestCluster;
beforeAll(async () => {
  cluster = await auditTestCluster();
}, 60_000);
afterAll(() => cluster?.stop());

// Each test gets a migrated database of its own; the stores connect as the BFF's login would.
auditStoreContract(
  'PostgresAuditStore',
  async () => {
    const db = await cluster.fresh();
    const opened: PostgresAudit[] = [];
    const connect = async () => {
      const audit = await connectPostgresAudit({ url: db.bffUrl, logger: silentLogger });
      opened.push(audit);
      return audit.store;
    };
    return {
      store: await connect(),
      // The database's clock stamps records: let it move on.
      tick: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      sibling: connect,
      close: async () => {
        await Promise.all(opened.map((a) => a.close()));
      },
    };
  },
  { shared: true },
);

describe('PostgresAuditStore', () => {
  it('reports how long each append and list took, and whether it failed', async () => {
    const db = await cluster.fresh();
    const seen: string[] = [];
    const metrics: Metrics = {
      ...noMetrics,
      observeEngine: (engine, operation, seconds, ok) =>
        void seen.push(`${engine} ${operation} ${ok} ${seconds >= 0}`),
    };
    const audit = await connectPostgresAudit({ url: db.bffUrl, logger: silentLogger, metrics });
    try {
      await audit.store.append({
        actor: 'a@example.com',
        action: 'card.update',
        outcome: 'success',
        requestId: 'r',
      });
      await audit.store.list({ limit: 5 });
      await expect(audit.store.list({ limit: 5, cursor: 'not a number' })).rejects.toThrow();
    } finally {
      await audit.close();
    }
    expect(seen).toEqual([
      'postgres audit.append true true',
      'postgres audit.list true true',
      'postgres audit.list false true',
    ]);
  });

  it('stamps records with the database clock, to the millisecond', async () => {
    const db = await cluster.fresh();
    const audit = await connectPostgresAudit({ url: db.bffUrl, logger: silentLogger });
    try {
      const before = (await asSuperuser<{ now: Date }>(db.ownerUrl, 'SELECT now()')).rows[0]?.now;
      const record = await audit.store.append({
        actor: 'ada@example.com',
        action: 'card.update',
        outcome: 'success',
        requestId: 'r1',
      });
      const after = (await asSuperuser<{ now: Date }>(db.ownerUrl, 'SELECT now()')).rows[0]?.now;
      expect(Date.parse(record.at)).toBeGreaterThanOrEqual((before as Date).getTime() - 1);
      expect(Date.parse(record.at)).toBeLessThanOrEqual((after as Date).getTime());
    } finally {
      await audit.close();
    }
  });

  it('reads a few pages’ worth of rows for each filter and a deep page, never the table', async () => {
    const db = await cluster.fresh();
    // Enough rows, and fresh statistics, for the planner to choose as it would in production.
    await asSuperuser(
      db.ownerUrl,
      `INSERT INTO audit_record
         (id, at, actor, action, attempted, outcome, card_id, request_id, prev_hash, hash)
       SELECT i, timestamptz '2030-01-01' + i * interval '1 second',
         'person' || (i % 500) || '@example.com',
         (ARRAY['card.reveal','card.update','session.signIn','access.denied'])[1 + i % 4],
         CASE WHEN i % 4 = 3 THEN (ARRAY['card.reveal','card.update','audit.view'])[1 + i % 3] END,
         (ARRAY['success','success','success','denied','failed'])[1 + i % 5],
         'card_' || (i % 2000), 'r' || i, repeat('0', 64), repeat('0', 64)
       FROM generate_series(1, 50000) AS i;
       ANALYZE audit_record`,
    );
    const at = (s: number) => Date.UTC(2030, 0, 1) + s * 1000;
    const filters = [
      {},
      { actor: 'person7@example.com' },
      { action: 'card.reveal' as const },
      { outcome: 'denied' as const },
      { cardId: 'card_42' },
      { from: at(20_000), to: at(20_500) },
      { from: at(1_000) },
      { to: at(45_000) },
      { action: 'access.denied' as const, outcome: 'failed' as const },
      { actor: 'person7@example.com', from: at(10_000), to: at(40_000) },
      { cardId: 'card_42', action: 'card.reveal' as const },
      { action: 'access.denied' as const, attempted: 'card.reveal' as const },
      { attempted: 'audit.view' as const },
      {
        action: 'access.denied' as const,
        attempted: 'audit.view' as const,
        from: at(20_000),
        to: at(30_000),
      },
    ];
    for (const filter of filters) {
      for (const cursor of [undefined, '25000']) {
        const { text, values } = listQuery({ limit: 50, filter, ...(cursor ? { cursor } : {}) });
        const { rows } = await asSuperuser<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
          db.ownerUrl,
          `EXPLAIN (ANALYZE, FORMAT JSON) ${text}`,
          values,
        );
        const plan = rows[0]?.['QUERY PLAN'][0].Plan as PlanNode;
        const read = rowsRead(plan);
        // A page is 51 rows; the planner may walk the id order past a few hundred that do not
        // match rather than use a narrower index. Reading all of one action (12,500 rows) to
        // sort them, or the table (50,000), is what must never happen.
        expect(
          read,
          `${JSON.stringify(filter)} after ${cursor}: ${JSON.stringify(plan)}`,
        ).toBeLessThan(2_500);
      }
    }
  });
});

interface PlanNode {
  'Node Type': string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

/** Rows the scans of a plan produced or threw away: what the query had to read. */
function rowsRead(node: PlanNode): number {
  const own = /Scan/.test(node['Node Type'])
    ? (node['Actual Rows'] +
        (node['Rows Removed by Filter'] ?? 0) +
        (node['Rows Removed by Index Recheck'] ?? 0)) *
      node['Actual Loops']
    : 0;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + rowsRead(child), 0);
}
