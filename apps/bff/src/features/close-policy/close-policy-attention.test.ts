// Issue 46's policy test, on both engines: the close policy an admin sets decides what "Needs
// attention" counts and what its lists hold. A receipt required from $75 makes exactly the
// unreceipted rows of that size or more whose money moved (posted or pending) count and appear
// in the list; $100 then moves both; a memo required for a category makes exactly its rows
// without a memo count and appear with `memo=missing`. The expected ids are worked out here from
// the seeded rows (docs/money.md's statuses written by hand), not by the product's code.
import { accountingCategorySchema } from '@card-console/shared/api/accounting-categories';
import { closePolicySchema } from '@card-console/shared/api/close-policy';
import {
  type Attention,
  attentionSchema,
  indexPageSchema,
  indexQueueSchema,
} from '@card-console/shared/api/transaction-index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, type TestApp, type TestSession } from '../../test/harness';
import { contractServiceOnEngines, oneSubAccountWorld } from '../../test/one-sub-account';
import { pdfReceipt } from '../../test/receipt-files';
import { settledAnswer } from '../../test/settled-index';

const NOW = Date.UTC(2026, 10, 20, 15);
/** Statuses whose money moved or will: posted (settled, refund, dispute) and pending. */
const MOVED = ['pending', 'settled', 'refund', 'dispute'];

interface Seeded {
  id: string;
  status: string;
  amountCents: number;
  receipt?: boolean;
  /** Booked to this category (by name), with this memo. */
  notes?: { category: 'Software' | 'Travel'; memo: string };
}

const rows: Seeded[] = [
  {
    id: 'at-100',
    status: 'settled',
    amountCents: -100_00,
    notes: { category: 'Software', memo: '' },
  },
  { id: 'at-75', status: 'settled', amountCents: -75_00 },
  {
    id: 'under-75',
    status: 'settled',
    amountCents: -74_99,
    notes: { category: 'Software', memo: 'Seats' },
  },
  {
    id: 'pending-99',
    status: 'pending',
    amountCents: -99_99,
    notes: { category: 'Software', memo: '' },
  },
  { id: 'pending-100', status: 'pending', amountCents: -100_00 },
  {
    id: 'refund-80',
    status: 'refund',
    amountCents: 80_00,
    notes: { category: 'Software', memo: '' },
  },
  { id: 'dispute-120', status: 'dispute', amountCents: -120_00, receipt: true },
  {
    id: 'receipted-150',
    status: 'settled',
    amountCents: -150_00,
    receipt: true,
    notes: { category: 'Software', memo: '' },
  },
  {
    id: 'ach-300',
    status: 'settled',
    amountCents: -300_00,
    notes: { category: 'Travel', memo: '' },
  },
  {
    id: 'small-pending',
    status: 'pending',
    amountCents: -5_00,
    notes: { category: 'Software', memo: 'Coffee' },
  },
  // Moved nothing: never needs a receipt or a memo, however large.
  {
    id: 'declined-500',
    status: 'declined',
    amountCents: -500_00,
    notes: { category: 'Software', memo: '' },
  },
  { id: 'canceled-90', status: 'canceled', amountCents: -90_00 },
  { id: 'reversed-200', status: 'reversed', amountCents: -200_00 },
  { id: 'failed-1000', status: 'failed', amountCents: 1_000_00 },
];

/** The rows a receipt policy from `fromCents` still lacks a receipt for. */
const lackingReceipt = (fromCents: number) =>
  rows
    .filter((r) => MOVED.includes(r.status) && Math.abs(r.amountCents) >= fromCents && !r.receipt)
    .map((r) => r.id)
    .sort();
/** The rows a memo policy on `category` still lacks a memo for. */
const lackingMemo = (category: string) =>
  rows
    .filter((r) => MOVED.includes(r.status) && r.notes?.category === category && !r.notes.memo)
    .map((r) => r.id)
    .sort();
/** Their money out (charges and payments), positive cents. */
const debitOf = (ids: string[]) =>
  rows.filter((r) => ids.includes(r.id)).reduce((n, r) => n + Math.max(-r.amountCents, 0), 0);

function world() {
  return oneSubAccountWorld(
    rows.map((r, i) => ({
      ...r,
      date: new Date(NOW - (i + 1) * 3_600_000).toISOString(),
      description: `Purchase ${r.id}`,
      card: !r.id.startsWith('ach'),
      categoryCode: '5734',
    })),
    4,
  );
}

const upstream = contractServiceOnEngines('close-policy-key', 'close_policy');
beforeAll(() => upstream.service.setWorld(world()));

for (const engine of Object.keys(upstream.engines) as (keyof typeof upstream.engines)[]) {
  describe(`the close policy's counts and lists on the ${engine} engine`, () => {
    let t: TestApp;
    let admin: TestSession;
    let finance: TestSession;
    const categoryIds: Record<string, string> = {};

    beforeAll(async () => {
      t = await upstream.startApp(engine, new ManualClock(NOW));
      [admin, finance] = [await t.signIn('admin'), await t.signIn('finance')];
      // The index synced, then the notes and receipts the rows are seeded with.
      await attention();
      for (const [code, name] of [
        ['6100', 'Software'],
        ['6200', 'Travel'],
      ] as const) {
        const res = await t.request
          .post('/api/accounting-categories')
          .set(admin.headers())
          .send({ code, name });
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        categoryIds[name] = accountingCategorySchema.parse(res.body).id;
      }
      const notes = await t.stores.notes();
      for (const r of rows) {
        if (r.notes) {
          const res = await t.request
            .patch(`/api/transactions/${r.id}/notes`)
            .set(finance.headers())
            .send({ version: 0, categoryId: categoryIds[r.notes.category], memo: r.notes.memo });
          expect(res.status, JSON.stringify(res.body)).toBe(200);
        }
        if (r.receipt) {
          const file = { fileName: 'r.pdf', mediaType: 'application/pdf', content: pdfReceipt() };
          await notes.addReceipt(r.id, file, 5, 'seed@example.test', new Date(NOW));
        }
      }
    }, 60_000);
    afterAll(async () => t?.close());

    async function attention(query = ''): Promise<Attention> {
      return settledAnswer(t, finance, `/api/index/attention${query}`, (b) =>
        attentionSchema.parse(b),
      );
    }
    /** The review queue of the same filter, around `id`: its size and whether `id` is in it. */
    async function queueOf(query: string, id: string) {
      const moved = MOVED.map((s) => `status=${s}`).join('&');
      return settledAnswer(
        t,
        finance,
        `/api/index/transactions/queue?${moved}&${query}&transactionId=${encodeURIComponent(id)}`,
        (b) => indexQueueSchema.parse(b),
      );
    }
    async function listIds(query: string): Promise<string[]> {
      const moved = MOVED.map((s) => `status=${s}`).join('&');
      const page = await settledAnswer(
        t,
        finance,
        `/api/index/transactions?${moved}&${query}&limit=200`,
        (b) => indexPageSchema.parse(b),
      );
      expect(page.nextCursor).toBeUndefined();
      return page.items.map((r) => r.id).sort();
    }
    async function setPolicy(receiptFromCents: number | null, memo: string[] = []) {
      // Made on the policy as it is now (its version).
      const current = await t.request.get('/api/close-policy').set(admin.headers());
      const { version } = closePolicySchema.parse(current.body);
      const res = await t.request
        .put('/api/close-policy')
        .set(admin.headers())
        .send({
          receiptFromCents,
          memoCategoryIds: memo.map((name) => categoryIds[name]),
          version,
        });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }

    it('a receipt required from $75, then from $100: the count and the list hold exactly the rows that lack one', async () => {
      await setPolicy(75_00);
      const from75 = lackingReceipt(75_00);
      // The boundary is included; a refund's size counts; a receipt, a moved-nothing status or a
      // smaller size leaves a row out.
      expect(from75).toEqual(
        ['ach-300', 'at-100', 'at-75', 'pending-100', 'pending-99', 'refund-80'].sort(),
      );
      expect((await attention()).missingReceipt).toEqual({
        count: from75.length,
        debitCents: debitOf(from75),
        fromCents: 75_00,
      });
      expect(await listIds('receipt=missing&minCents=7500')).toEqual(from75);
      // The review queue of that filter holds them: its count, and each one has its place.
      for (const id of from75) {
        const queue = await queueOf('receipt=missing&minCents=7500', id);
        expect(queue.count).toBe(from75.length);
        expect(queue.position).toBeGreaterThan(0);
      }
      expect((await queueOf('receipt=missing&minCents=7500', 'under-75')).position).toBeUndefined();

      await setPolicy(100_00);
      const from100 = lackingReceipt(100_00);
      expect(from100).toEqual(['ach-300', 'at-100', 'pending-100'].sort());
      expect((await attention()).missingReceipt).toEqual({
        count: from100.length,
        debitCents: debitOf(from100),
        fromCents: 100_00,
      });
      expect(await listIds('receipt=missing&minCents=10000')).toEqual(from100);
      expect((await queueOf('receipt=missing&minCents=10000', 'at-75')).position).toBeUndefined();
      expect((await queueOf('receipt=missing&minCents=10000', 'at-100')).count).toBe(
        from100.length,
      );

      // A size asked for overrides the policy's; no receipt policy counts none.
      expect((await attention('?receiptFromCents=7500')).missingReceipt.count).toBe(from75.length);
      await setPolicy(null);
      expect((await attention()).missingReceipt).toEqual({
        count: 0,
        debitCents: 0,
        fromCents: null,
      });
    });

    it('a memo required for a category: exactly its rows whose money moved and that have no memo count and are listed', async () => {
      await setPolicy(75_00);
      expect((await attention()).missingMemo).toEqual({
        count: 0,
        debitCents: 0,
        categoryIds: [],
      });

      await setPolicy(75_00, ['Software']);
      const software = lackingMemo('Software');
      expect(software).toEqual(['at-100', 'pending-99', 'receipted-150', 'refund-80'].sort());
      expect((await attention()).missingMemo).toEqual({
        count: software.length,
        debitCents: debitOf(software),
        categoryIds: [categoryIds.Software],
      });
      expect(await listIds(`account=${categoryIds.Software}&memo=missing`)).toEqual(software);
      // Its rows with a memo, and rows without notes at all (which have none), the other way.
      expect(await listIds(`account=${categoryIds.Software}&memo=written`)).toEqual(
        ['small-pending', 'under-75'].sort(),
      );
      const noNotes = rows.filter((r) => MOVED.includes(r.status) && !r.notes).map((r) => r.id);
      expect(await listIds('memo=missing')).toEqual(
        [...lackingMemo('Software'), ...lackingMemo('Travel'), ...noNotes].sort(),
      );

      await setPolicy(75_00, ['Software', 'Travel']);
      const both = [...software, ...lackingMemo('Travel')].sort();
      expect((await attention()).missingMemo.count).toBe(both.length);
      expect(
        await listIds(`account=${categoryIds.Software}&account=${categoryIds.Travel}&memo=missing`),
      ).toEqual(both);
    });
  });
}
