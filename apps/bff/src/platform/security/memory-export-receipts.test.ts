import { describe, expect, it } from 'vitest';
import { CountedExportReceipts } from '../../test/counted-stores';
import { ManualClock } from '../../test/manual-clock';
import { MemoryExportReceipts } from './export-receipts';
import { exportReceiptsContract } from './export-receipts.contract';

exportReceiptsContract('MemoryExportReceipts', (options) => new MemoryExportReceipts(options));

describe('MemoryExportReceipts', () => {
  it('never holds more than its cap: past it, the oldest receipts go first', async () => {
    const receipts = new CountedExportReceipts({ maxEntries: 50 });
    for (let i = 0; i < 200; i++) {
      await receipts.record('ada@example.test', `req-${String(i).padStart(8, '0')}`, {
        rows: i,
        bytes: i,
      });
      expect(receipts.size).toBeLessThanOrEqual(50);
    }
    expect(await receipts.find('ada@example.test', 'req-00000149')).toBeUndefined();
    expect(await receipts.find('ada@example.test', 'req-00000150')).toEqual({
      rows: 150,
      bytes: 150,
    });
  });

  it('drops lapsed receipts as new ones come, so an idle-then-busy BFF does not keep them', async () => {
    const clock = new ManualClock();
    const receipts = new CountedExportReceipts({ ttlMs: 60_000, now: () => clock.now() });
    for (let i = 0; i < 30; i++) {
      await receipts.record('ada@example.test', `old-${String(i).padStart(8, '0')}`, {
        rows: i,
        bytes: i,
      });
    }
    clock.advance(60_000);
    await receipts.record('ada@example.test', 'new-00000001', { rows: 1, bytes: 1 });
    expect(receipts.size).toBe(1);
  });
});
