import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../test/audit-cluster';
import { applyIndexMigrations } from './index-migrations';
import { TransactionIndexStore } from './index-store';
import { indexStoreContract } from './index-store.contract';
import { embeddedEngine } from './sql-engine';

indexStoreContract('embedded engine (PGlite)', async () => {
  const engine = await embeddedEngine();
  await applyIndexMigrations(engine, silentLogger);
  return { engine, close: () => engine.close() };
});

describe('the embedded engine', () => {
  it('persists to its directory: a restart finds the rows and applies no migration twice', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cc-index-'));
    try {
      const first = await embeddedEngine(dir);
      expect(await applyIndexMigrations(first, silentLogger)).toEqual([
        '20261126120000000_transaction-index',
        '20261126180000000_pending-rows',
        '20261126210000000_overview-tallies',
        '20261127090000000_annotations',
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

      const again = await embeddedEngine(dir);
      try {
        expect(await applyIndexMigrations(again, silentLogger)).toEqual([]);
        expect(await new TransactionIndexStore(again).summary({})).toEqual({
          count: 1,
          debitCents: 1_500,
          creditCents: 0,
        });
      } finally {
        await again.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
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
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
