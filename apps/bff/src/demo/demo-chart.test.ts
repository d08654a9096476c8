import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { embeddedEngine } from '../platform/sql/sql-engine';
import { openStores } from '../stores';
import { silentLogger } from '../test/audit-cluster';
import { seedDemoChart } from './demo-chart';

describe("demo mode's chart of accounts", () => {
  it('is there when the notes store first opens, once, and leaves a chart people changed alone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cc-demo-chart-'));
    const open = () =>
      openStores({
        open: () => embeddedEngine(dir),
        logger: silentLogger,
        seed: ({ notes }) => seedDemoChart(notes, new Date(Date.UTC(2026, 10, 1))),
      });
    try {
      const first = open();
      const store = await first.notes();
      const chart = await store.categories();
      expect(chart.map((c) => c.code)).toEqual([
        '6000',
        '6100',
        '6200',
        '6300',
        '6400',
        '6500',
        '6600',
        '6700',
        '6800',
        '6900',
        '7000',
        '7100',
      ]);
      const travel = chart.find((c) => c.code === '6200');
      await store.updateCategory(travel?.id ?? '', { name: 'Travel and lodging' }, new Date());
      await first.close();

      const again = open();
      const after = await (await again.notes()).categories();
      expect(after).toHaveLength(12);
      expect(after.find((c) => c.code === '6200')?.name).toBe('Travel and lodging');
      await again.close();
    } finally {
      rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
    }
  }, 60_000);
});
