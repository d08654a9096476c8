// One behaviour suite for every ExportReceipts implementation: in process, and shared by replicas.
import { describe, expect, it } from 'vitest';
import type { ExportReceipts } from './export-receipts';

export function exportReceiptsContract(
  name: string,
  make: (options: { ttlMs?: number }) => ExportReceipts,
  options: {
    /** Two replicas' receipts over one store (for an in-process one, the same object twice). */
    replicas?: () => [ExportReceipts, ExportReceipts];
  } = {},
) {
  const replicas =
    options.replicas ??
    ((): [ExportReceipts, ExportReceipts] => {
      const receipts = make({});
      return [receipts, receipts];
    });
  const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

  describe(`${name} (ExportReceipts contract)`, () => {
    it('finds what was recorded for the same person and export', async () => {
      const receipts = make({});
      await receipts.record('ada@example.test', 'req-00000001', { rows: 4_000, bytes: 612_345 });
      expect(await receipts.find('ada@example.test', 'req-00000001')).toEqual({
        rows: 4_000,
        bytes: 612_345,
      });
    });

    it('finds nothing for an export never recorded, nor for another export of the person', async () => {
      const receipts = make({});
      await receipts.record('ada@example.test', 'req-00000001', { rows: 1, bytes: 10 });
      expect(await receipts.find('ada@example.test', 'req-00000002')).toBeUndefined();
      expect(await receipts.find('bob@example.test', 'never-recorded')).toBeUndefined();
    });

    it("finds nothing for another person's export, even with its request id", async () => {
      const receipts = make({});
      await receipts.record('ada@example.test', 'req-00000001', { rows: 3, bytes: 30 });
      expect(await receipts.find('bob@example.test', 'req-00000001')).toBeUndefined();
      expect(await receipts.find('ada@example.test', 'req-00000001')).toEqual({
        rows: 3,
        bytes: 30,
      });
    });

    it('keeps addresses and ids that could run into each other apart', async () => {
      const receipts = make({});
      // "a:b" + "c:d…" and "a" + "b:c:d…" must not be one key.
      await receipts.record('a:b@example.test', 'c:d-00000001', { rows: 1, bytes: 1 });
      expect(await receipts.find('a', 'b@example.test:c:d-00000001')).toBeUndefined();
      expect(await receipts.find('a:b@example.test', 'c:d-00000001')).toEqual({
        rows: 1,
        bytes: 1,
      });
    });

    it('a second record for the same export replaces the first', async () => {
      const receipts = make({});
      await receipts.record('ada@example.test', 'req-00000001', { rows: 1, bytes: 10 });
      await receipts.record('ada@example.test', 'req-00000001', { rows: 2, bytes: 20 });
      expect(await receipts.find('ada@example.test', 'req-00000001')).toEqual({
        rows: 2,
        bytes: 20,
      });
    });

    it('a receipt lapses once its time to live has passed', async () => {
      const receipts = make({ ttlMs: 200 });
      await receipts.record('ada@example.test', 'req-00000001', { rows: 1, bytes: 10 });
      // Polled, not timed: the machine may be slow, the receipt must go in the end.
      while (await receipts.find('ada@example.test', 'req-00000001')) await sleep(50);
      expect(await receipts.find('ada@example.test', 'req-00000001')).toBeUndefined();
    });

    it('a receipt recorded on one replica is found on the other, for its person only', async () => {
      const [a, b] = replicas();
      await a.record('ada@example.test', 'req-00000001', { rows: 7, bytes: 70 });
      expect(await b.find('ada@example.test', 'req-00000001')).toEqual({ rows: 7, bytes: 70 });
      expect(await b.find('bob@example.test', 'req-00000001')).toBeUndefined();
    });

    it('many exports recorded at once on both replicas are each found with their own figures', async () => {
      const [a, b] = replicas();
      const ids = Array.from({ length: 60 }, (_, i) => `req-${String(i).padStart(8, '0')}`);
      await Promise.all(
        ids.map((id, i) =>
          (i % 2 ? a : b).record(`p${i % 3}@example.test`, id, { rows: i, bytes: i * 100 }),
        ),
      );
      const found = await Promise.all(
        ids.map((id, i) => (i % 2 ? b : a).find(`p${i % 3}@example.test`, id)),
      );
      expect(found).toEqual(ids.map((_, i) => ({ rows: i, bytes: i * 100 })));
    });
  });
}
