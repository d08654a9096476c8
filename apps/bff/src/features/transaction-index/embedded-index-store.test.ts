import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyIndexMigrations } from '../../platform/sql/index-migrations';
import { MIGRATIONS_TABLE } from '../../platform/sql/migrations';
import { embeddedEngine } from '../../platform/sql/sql-engine';
import { silentLogger } from '../../test/audit-cluster';
import { memoryEngine } from '../../test/engines/embedded';
import { explainedEngine, planNodes } from '../../test/explained-engine';
import { STATISTICS_AFTER_ROWS, TransactionIndexStore } from './index-store';
import { indexStoreContract } from './index-store.contract';

// As the BFF opens it: PGlite on a thread of its own, every statement a message (the tests of
// what runs on the index open it on their own thread; `embedded-engine.test.ts` holds the two
// alike).
indexStoreContract('embedded engine (PGlite)', async () => {
  const engine = await memoryEngine({ thread: 'worker' });
  await applyIndexMigrations(engine, silentLogger);
  return { engine, close: () => engine.close() };
});

describe('the embedded engine', () => {
  it('persists to its directory: a restart finds the rows and applies no migration twice', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cc-index-'));
    try {
      const first = await embeddedEngine(dir, { thread: 'worker' });
      expect(await applyIndexMigrations(first, silentLogger)).toEqual([
        '20261126120000000_transaction-index',
        '20261126180000000_pending-rows',
        '20261126210000000_overview-tallies',
        '20261127090000000_annotations',
        '20261127120000000_overview-month-tallies',
        '20261127125000000_category-number',
        '20261127130000000_people',
        '20261127140000000_alerts',
        '20261127150000000_alert-delivery',
        '20261127160000000_person-sessions',
        '20261128090000000_totp-secrets-sealed',
        '20261128120000000_alert-limits',
        '20261129050000000_money-defined-once',
        '20261129100000000_shared-sessions-and-codes',
        '20261129110000000_shared-limits-locks-exports',
        '20261129120000000_shared-factors-and-day-aggregates',
        '20261129150000000_one-migrations-table',
        '20261129170000000_background-jobs',
        '20261130080000000_notes-named-notes',
        '20261130090000000_review-queue',
        '20261130100000000_close-policy',
        '20261130120000000_receipt-inbox',
        '20261130210000000_security-policy',
        '20261130220000000_own-totp-secret',
        '20261201120000000_decline-reason-index',
        '20261202013000000_merchant-names',
        '20261202050000000_card-owners',
        '20261203070000000_sync-range-pages',
        '20261204050000000_rare-status-index',
        '20261204080000000_kept-pages-uncompressed',
        '20261206150000000_replica-roll',
        '20261207050000000_receipt-inbox-mail-message',
        '20261207130000000_person-leftovers',
        '20261207160000000_empty-card-id',
        '20261207170000000_texts-trimmed',
        '20261208090000000_close-policy-version',
      ]);
      await new TransactionIndexStore(first).replaceDay(
        'sa',
        '2026-10-01',
        [
          {
            id: 't1',
            at: '2026-10-01T10:00:00.000Z',
            description: 'Figma',
            referenceNumber: 'R1',
            amountCents: -1_500,
            status: 'settled',
          },
        ],
        Date.UTC(2026, 9, 1),
      );
      await first.close();

      const again = await embeddedEngine(dir, { thread: 'worker' });
      try {
        expect(await applyIndexMigrations(again, silentLogger)).toEqual([]);
        expect(await new TransactionIndexStore(again).summary({})).toMatchObject({
          count: 1,
          posted: { count: 1, cents: -1_500 },
        });
      } finally {
        await again.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
    }
  }, 60_000);

  it('sets card ids kept empty and decline reasons kept untrimmed by an older build as this one keeps them, and tallies their days again', async () => {
    const engine = await memoryEngine();
    try {
      await applyIndexMigrations(engine, silentLogger);
      const row = (id: string, status: 'settled' | 'declined', cardId: string) => ({
        id,
        at: '2026-10-01T10:00:00.000Z',
        description: 'Figma',
        referenceNumber: id,
        amountCents: -1_500,
        status,
        cardId,
        ...(status === 'declined' ? { declineReason: 'Card paused' } : {}),
      });
      const store = new TransactionIndexStore(engine);
      await store.replaceDay(
        'sa',
        '2026-10-01',
        [
          row('t1', 'settled', 'card_1'),
          row('t2', 'declined', 'x'),
          row('t3', 'settled', 'x'),
          row('t4', 'declined', 'card_1'),
          row('t5', 'declined', 'card_1'),
        ],
        Date.UTC(2026, 9, 1),
      );
      // As an older build kept them: an empty card id, counted as a card's row; a reason as sent.
      await engine.query("UPDATE index_transaction SET card_id = '' WHERE card_id = 'x'");
      await engine.query(
        "UPDATE index_transaction SET decline_reason = ' Card paused ' WHERE id = 't4'",
      );
      await engine.query("UPDATE index_transaction SET decline_reason = '  ' WHERE id = 't5'");
      await engine.query("UPDATE index_transaction SET category_code = ' 5812' WHERE id = 't1'");
      await engine.query("UPDATE index_transaction SET category_code = '  ' WHERE id = 't3'");
      await engine.query("SELECT index_tally_days('sa', ARRAY['2026-10-01']::date[])");
      const tallied = () =>
        engine.query<{ card_n: string; declines: string }>(
          'SELECT sum(card_n)::text AS card_n, sum(declines)::text AS declines FROM index_hour_tally',
        );
      expect(await tallied()).toEqual([{ card_n: '5', declines: '3' }]);

      // The older build's schema: without the migrations after it (the close policy's version
      // is one of them, its column not there yet).
      const theirs = [
        '20261207160000000_empty-card-id',
        '20261207170000000_texts-trimmed',
        '20261208090000000_close-policy-version',
      ];
      await engine.query('ALTER TABLE close_policy DROP COLUMN version');
      await engine.query(`DELETE FROM ${MIGRATIONS_TABLE} WHERE name = ANY($1::text[])`, [theirs]);
      expect(await applyIndexMigrations(engine, silentLogger)).toEqual(theirs);
      const kept = await engine.query<{
        id: string;
        card_id: string | null;
        decline_reason: string | null;
        category_number: number | null;
      }>('SELECT id, card_id, decline_reason, category_number FROM index_transaction ORDER BY id');
      expect(kept).toEqual([
        { id: 't1', card_id: 'card_1', decline_reason: null, category_number: 5812 },
        { id: 't2', card_id: null, decline_reason: 'Card paused', category_number: null },
        { id: 't3', card_id: null, decline_reason: null, category_number: null },
        { id: 't4', card_id: 'card_1', decline_reason: 'Card paused', category_number: null },
        { id: 't5', card_id: 'card_1', decline_reason: null, category_number: null },
      ]);
      const codes = await engine.query<{ code: string | null }>(
        "SELECT category_code AS code FROM index_transaction WHERE id IN ('t1', 't3') ORDER BY id",
      );
      expect(codes).toEqual([{ code: '5812' }, { code: null }]);
      // Three card rows and two card declines, as the money definition reads them.
      expect(await tallied()).toEqual([{ card_n: '3', declines: '2' }]);
      // The declines by reason, as the Overview reads them: one named, one without.
      const reasons = await engine.query<{ key: string | null; n: string }>(
        `SELECT key, sum(n)::text AS n FROM index_day_key_tally WHERE kind = 'd'
          GROUP BY key ORDER BY key NULLS LAST`,
      );
      expect(reasons).toEqual([
        { key: 'Card paused', n: '1' },
        { key: null, n: '1' },
      ]);
    } finally {
      await engine.close();
    }
  }, 60_000);

  it('says which directory it could not create its cluster in', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cc-index-'));
    try {
      writeFileSync(join(dir, 'a-file'), 'not a directory');
      const inside = join(dir, 'a-file', 'transaction-index');
      await expect(embeddedEngine(inside)).rejects.toThrow(
        `could not create the transaction index's embedded engine in ${inside}`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
    }
  }, 60_000);

  it('keeps its statistics up to date as a sync writes: a page deep in a large sub account reads about a page of rows', async () => {
    const engine = await memoryEngine();
    try {
      await applyIndexMigrations(engine, silentLogger);
      // Each page query is run again under EXPLAIN ANALYZE: how many rows its scan produced.
      const { engine: watched, plans } = explainedEngine(engine, (text) =>
        text.includes('json_agg(p ORDER BY'),
      );
      const store = new TransactionIndexStore(watched);
      // 6,000 rows over 60 days of one sub account (and a few in another), written day by day
      // as a sync writes them: past STATISTICS_AFTER_ROWS the statistics are refreshed.
      expect(STATISTICS_AFTER_ROWS).toBeLessThan(6_000);
      for (let d = 0; d < 60; d++) {
        const day = new Date(Date.UTC(2026, 7, 1 + d)).toISOString().slice(0, 10);
        const rows = Array.from({ length: 100 }, (_, i) => ({
          id: `t${d}-${i}`,
          at: `${day}T${String(i % 24).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}:00.000Z`,
          description: `Row ${i}`,
          referenceNumber: `R${d}-${i}`,
          amountCents: -(100 + i),
          status: 'settled',
        }));
        await store.replaceDay('sa-big', day, rows, Date.UTC(2026, 9, 1));
        if (d % 20 === 0)
          await store.replaceDay('sa-small', day, rows.slice(0, 3), Date.UTC(2026, 9, 1));
      }
      const order = { sort: 'date', direction: 'desc' } as const;
      const first = await store.page({ subAccountIds: ['sa-big'] }, order, 100);
      const second = await store.page({ subAccountIds: ['sa-big'] }, order, 100, first.next);
      expect(second.items).toHaveLength(100);
      expect((second.items[0]?.at ?? '') < (first.items.at(-1)?.at ?? '')).toBe(true);
      // Without statistics the engine sorted the whole sub account for each page (5,900 rows
      // for the second); walking the index in the list's order it reads the page and the next row.
      const scanned = plans.map(largestScan);
      expect(scanned).toHaveLength(2);
      for (const rows of scanned) expect(rows).toBeLessThanOrEqual(101);
    } finally {
      await engine.close();
    }
  }, 60_000);
});

/** The most rows any scan node of an EXPLAIN (ANALYZE, FORMAT JSON) plan produced. */
function largestScan(plan: unknown): number {
  return Math.max(
    0,
    ...planNodes(plan)
      .filter((node) => node['Node Type']?.includes('Scan'))
      .map((node) => node['Actual Rows'] ?? 0),
  );
}
