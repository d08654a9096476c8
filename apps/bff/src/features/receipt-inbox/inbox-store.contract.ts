// One contract for the receipt inbox's store, run on every engine the index runs on (the
// embedded engine and PostgreSQL): what an inbox holds and shows, which transactions are
// candidates (card charges that moved or will, in the window, not reviewed), that attaching
// moves the bytes to the transaction's receipts with its audit hook in the same transaction,
// that two attaches of one item at once attach it once, and the forwarding secrets.
import { INBOX_MAX_ITEMS } from '@card-console/shared/api/receipt-inbox';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { SqlEngine } from '../../platform/sql/sql-engine';
import { NotesConflictError, NotesStore, TooManyReceiptsError } from '../notes';
import { type IndexedTransaction, TransactionIndexStore } from '../transaction-index';
import {
  InboxDuplicateError,
  InboxFullError,
  InboxItemAttachedError,
  ReceiptInboxStore,
} from './inbox-store';

const at = (day: number, hour = 12) => new Date(Date.UTC(2026, 10, day, hour));
const pdf = (text: string) => Buffer.from(`%PDF-1.4\n% ${text}\n%%EOF\n`);
const file = (name: string, text = name) => ({
  fileName: name,
  mediaType: 'application/pdf',
  content: pdf(text),
});

function row(
  id: string,
  over: Partial<Omit<IndexedTransaction, 'subAccountId'>> = {},
): Omit<IndexedTransaction, 'subAccountId'> {
  return {
    id,
    at: at(20).toISOString(),
    description: `SQ *HARBOR CAFE ${id}`,
    merchant: 'Harbor Cafe',
    categoryCode: '5812',
    referenceNumber: `ref-${id}`,
    amountCents: -1_288,
    status: 'settled',
    cardId: 'card-1',
    ...over,
  };
}

/** Where a test attaches: a transaction as the inbox keeps it. */
const target = (transactionId: string, automatic: boolean) => ({
  subAccountId: 'sa',
  transactionId,
  description: `SQ *HARBOR CAFE ${transactionId}`,
  at: at(20).toISOString(),
  amountCents: -1_288,
  automatic,
});

export function receiptInboxStoreContract(
  name: string,
  open: () => Promise<{ engine: SqlEngine; close(): Promise<void> }>,
): void {
  describe(`the receipt inbox store: ${name}`, () => {
    let engine: SqlEngine;
    let close: () => Promise<void>;
    let store: ReceiptInboxStore;
    let notes: NotesStore;
    let index: TransactionIndexStore;
    beforeAll(async () => {
      ({ engine, close } = await open());
      store = new ReceiptInboxStore(engine);
      notes = new NotesStore(engine);
      index = new TransactionIndexStore(engine);
    }, 60_000);
    afterAll(() => close?.());
    beforeEach(async () => {
      for (const table of [
        'receipt_inbox_item',
        'receipt_forwarding_address',
        'transaction_receipt',
        'transaction_notes',
        'index_transaction',
        'index_sync_day',
        'background_job',
      ]) {
        await engine.query(`DELETE FROM ${table}`);
      }
    });

    it('keeps each person’s items apart, newest first, with their counts', async () => {
      const a = await store.receive('ana@example.test', file('a.pdf'), 'upload', at(1));
      const b = await store.receive('ana@example.test', file('b.pdf'), 'email', at(2));
      await store.receive('ben@example.test', file('c.pdf'), 'upload', at(3));
      expect(a).toMatchObject({ status: 'reading', via: 'upload', suggestions: [] });
      expect(a.read).toBeUndefined();
      const list = await store.list('ana@example.test', at(4));
      expect(list.items.map((i) => i.id)).toEqual([b.id, a.id]);
      expect(list.counts).toEqual({ reading: 2, suggested: 0, waiting: 0, attached: 0 });
      expect(await store.item('ben@example.test', a.id)).toBeUndefined();
      expect(await store.file('ben@example.test', a.id)).toBeUndefined();
      expect((await store.file('ana@example.test', a.id))?.content).toEqual(pdf('a.pdf'));
    });

    it('saves what was read: suggested with suggestions, waiting without', async () => {
      const a = await store.receive('ana@example.test', file('a.pdf'), 'upload', at(1));
      const b = await store.receive('ana@example.test', file('b.pdf'), 'upload', at(1));
      const suggestion = {
        subAccountId: 'sa',
        transactionId: 't1',
        description: 'SQ *HARBOR CAFE',
        at: at(20).toISOString(),
        amountCents: -1_288,
        score: 0.9,
        reasons: ['amount' as const],
      };
      expect(
        await store.saveRead(
          a.id,
          {
            read: { totalCents: 1_288, date: '2026-11-19', merchant: 'Harbor Café' },
            suggestions: [suggestion],
          },
          at(2),
        ),
      ).toBe(true);
      await store.saveRead(b.id, { read: { problem: 'unreadable' }, suggestions: [] }, at(2));
      expect(await store.item('ana@example.test', a.id)).toMatchObject({
        status: 'suggested',
        read: { totalCents: 1_288, date: '2026-11-19', merchant: 'Harbor Café' },
        suggestions: [suggestion],
      });
      expect(await store.item('ana@example.test', b.id)).toMatchObject({
        status: 'waiting',
        read: { problem: 'unreadable' },
        suggestions: [],
      });
      // Only waiting ones with a total are matched again.
      expect(await store.claimWaiting('ana@example.test', at(3), at(3), 10)).toEqual([]);
      expect(await store.toRead(a.id)).toBeUndefined();
    });

    it('takes its person’s waiting items to match again once, oldest first, up to the limit', async () => {
      const ids: string[] = [];
      for (const [i, name] of ['c.pdf', 'd.pdf', 'e.pdf'].entries()) {
        const item = await store.receive('ana@example.test', file(name), 'upload', at(1));
        const read = { totalCents: 1_288, date: '2026-11-19' };
        await store.saveRead(item.id, { read, suggestions: [] }, at(2 + i));
        ids.push(item.id);
      }
      const ben = await store.receive('ben@example.test', file('f.pdf'), 'upload', at(1));
      await store.saveRead(ben.id, { read: { totalCents: 1_288 }, suggestions: [] }, at(2));
      // Matched at 2, 3 and 4: before 4, the first two; at most one at a time.
      expect(await store.claimWaiting('ana@example.test', at(4), at(10), 1)).toEqual([ids[0]]);
      expect(await store.claimWaiting('ana@example.test', at(4), at(10), 5)).toEqual([ids[1]]);
      // Taken, they are matched at 10 now: not taken again before then.
      expect(await store.claimWaiting('ana@example.test', at(5), at(11), 5)).toEqual([ids[2]]);
      expect(await store.claimWaiting('ana@example.test', at(10), at(12), 5)).toEqual([]);
      expect((await store.claimWaiting('ana@example.test', at(12), at(13), 5)).sort()).toEqual(
        [...ids].sort(),
      );
      // Another person's are theirs to match.
      expect(await store.claimWaiting('ben@example.test', at(3), at(13), 5)).toEqual([ben.id]);
      expect((await store.item('ana@example.test', ids[0] ?? ''))?.status).toBe('waiting');
    });

    it('names its person’s items still reading whose read job failed or was never asked for, past the time given', async () => {
      const job = (key: string, state: string) =>
        engine.query(
          `INSERT INTO background_job (kind, key, input, state, requested_at, next_attempt_at)
           VALUES ('receipt-inbox', $1, '{}', $2, now(), now())`,
          [key, state],
        );
      const failed = await store.receive('ana@example.test', file('failed.pdf'), 'upload', at(1));
      const never = await store.receive('ana@example.test', file('never.pdf'), 'upload', at(1, 13));
      const pending = await store.receive('ana@example.test', file('pending.pdf'), 'upload', at(1));
      const running = await store.receive('ana@example.test', file('running.pdf'), 'upload', at(1));
      const done = await store.receive('ana@example.test', file('done.pdf'), 'upload', at(1));
      const recent = await store.receive('ana@example.test', file('recent.pdf'), 'upload', at(3));
      const theirs = await store.receive('ben@example.test', file('ben.pdf'), 'upload', at(1));
      await job(failed.id, 'failed');
      await job(pending.id, 'pending');
      await job(running.id, 'running');
      await job(done.id, 'failed');
      await job(theirs.id, 'failed');
      await store.saveRead(done.id, { read: {}, suggestions: [] }, at(2));
      expect(await store.staleReading('ana@example.test', at(2), 10)).toEqual([
        failed.id,
        never.id,
      ]);
      expect(await store.staleReading('ana@example.test', at(2), 1)).toEqual([failed.id]);
      expect(await store.staleReading('ana@example.test', at(1), 10)).toEqual([]);
      expect(recent.status).toBe('reading');
    });

    it('keeps a mailed file once per message: the same bytes of the same message again are refused', async () => {
      const a = await store.receive(
        'ana@example.test',
        file('a.pdf'),
        'email',
        at(1),
        undefined,
        '<m1@x>',
      );
      const again = store.receive(
        'ana@example.test',
        file('a.pdf'),
        'email',
        at(2),
        undefined,
        '<m1@x>',
      );
      await expect(again).rejects.toBeInstanceOf(InboxDuplicateError);
      await expect(again).rejects.toMatchObject({ item: { id: a.id } });
      // Other bytes of that message, the same bytes in another message, another person's, and
      // an upload are each kept.
      await store.receive('ana@example.test', file('b.pdf'), 'email', at(2), undefined, '<m1@x>');
      await store.receive('ana@example.test', file('a.pdf'), 'email', at(2), undefined, '<m2@x>');
      await store.receive('ben@example.test', file('a.pdf'), 'email', at(2), undefined, '<m1@x>');
      await store.receive('ana@example.test', file('a.pdf'), 'upload', at(2));
      expect((await store.list('ana@example.test', at(3))).items).toHaveLength(4);
      // Discarded meanwhile, it is gone: the message sent again keeps it again.
      await store.discard('ana@example.test', a.id);
      await expect(
        store.receive('ana@example.test', file('a.pdf'), 'email', at(3), undefined, '<m1@x>'),
      ).resolves.toMatchObject({ status: 'reading', via: 'email' });
    });

    it('finds card charges in the window, leaving out what moved no money, credits, cardless and reviewed rows', async () => {
      await index.replaceDay(
        'sa',
        '2026-11-20',
        [
          row('ok'),
          row('pending', { status: 'pending' }),
          row('declined', { status: 'declined' }),
          row('reversed', { status: 'reversed' }),
          row('refund', { status: 'refund', amountCents: 1_288 }),
          row('ach', { cardId: undefined }),
          row('bigger', { amountCents: -5_000 }),
          row('reviewed'),
        ],
        at(21).getTime(),
      );
      await index.replaceDay('sa', '2026-11-10', [row('early', { at: at(10).toISOString() })], 0);
      await notes.change('reviewed', { version: 0, reviewed: true }, 'ana@example.test', at(21));
      const { receipt } = await notes.addReceipt('ok', file('old.pdf'), 10, 'ana', at(21));
      expect(receipt.fileName).toBe('old.pdf');
      const found = await store.candidates({
        lowCents: 1_000,
        highCents: 1_500,
        fromAt: at(18).toISOString(),
        toAt: at(25).toISOString(),
      });
      expect(found.map((c) => c.id).sort()).toEqual(['ok', 'pending']);
      expect(found.find((c) => c.id === 'ok')).toMatchObject({
        subAccountId: 'sa',
        merchant: 'Harbor Cafe',
        categoryCode: '5812',
        amountCents: -1_288,
        hasReceipt: true,
      });
      expect(found.find((c) => c.id === 'pending')?.hasReceipt).toBe(false);
    });

    it('attaches: the bytes become the transaction’s receipt, the item keeps where they went', async () => {
      const a = await store.receive(
        'ana@example.test',
        file('a.pdf', 'bytes of a'),
        'upload',
        at(1),
      );
      const hooked: string[] = [];
      const done = await store.attach(
        'ana@example.test',
        a.id,
        target('t1', false),
        10,
        'ana@example.test',
        at(2),
        async (result) => {
          hooked.push(result.receipt.id);
        },
      );
      expect(done?.item).toMatchObject({
        status: 'attached',
        attached: {
          subAccountId: 'sa',
          transactionId: 't1',
          description: 'SQ *HARBOR CAFE t1',
          transactionAt: at(20).toISOString(),
          amountCents: -1_288,
          automatic: false,
          at: at(2).toISOString(),
        },
      });
      expect(hooked).toEqual([done?.receipt.id]);
      const receipts = await notes.receipts('t1');
      expect(receipts.map((r) => r.fileName)).toEqual(['a.pdf']);
      expect((await notes.receiptFile('t1', receipts[0]?.id ?? ''))?.content).toEqual(
        pdf('bytes of a'),
      );
      // The item's file is now the receipt's.
      expect((await store.file('ana@example.test', a.id))?.content).toEqual(pdf('bytes of a'));
      await expect(
        store.attach('ana@example.test', a.id, target('t2', false), 10, 'ana', at(3)),
      ).rejects.toBeInstanceOf(InboxItemAttachedError);
      await expect(store.discard('ana@example.test', a.id)).rejects.toBeInstanceOf(
        InboxItemAttachedError,
      );
      expect(
        await store.attach('ben@example.test', a.id, target('t1', false), 10, 'ben', at(3)),
      ).toBeUndefined();
    });

    it('attaches a match for certain straight from reading, with what was read, or neither', async () => {
      const a = await store.receive('ana@example.test', file('a.pdf'), 'upload', at(1));
      const read = { totalCents: 1_288, date: '2026-11-19', merchant: 'Harbor Café' };
      const t1 = { ...target('t1', true), score: 1, reasons: ['amount' as const] };
      const withRead = { ...target('t1', true), read: { read, suggestions: [t1] } };
      await expect(
        store.attach('ana@example.test', a.id, withRead, 10, 'ana', at(2), async () => {
          throw new Error('trail down');
        }),
      ).rejects.toThrow('trail down');
      const refused = await store.item('ana@example.test', a.id);
      expect(refused?.status).toBe('reading');
      expect(refused?.read).toBeUndefined();
      const done = await store.attach('ana@example.test', a.id, withRead, 10, 'ana', at(2));
      expect(done?.item).toMatchObject({
        status: 'attached',
        read,
        attached: { transactionId: 't1', automatic: true },
      });
      expect(await store.item('ana@example.test', a.id)).toEqual(done?.item);
      expect((await notes.receipts('t1')).map((r) => r.fileName)).toEqual(['a.pdf']);
    });

    it('attaches nothing when the audit hook refuses, or the transaction is reviewed', async () => {
      const a = await store.receive('ana@example.test', file('a.pdf'), 'upload', at(1));
      await expect(
        store.attach('ana@example.test', a.id, target('t1', true), 10, 'ana', at(2), async () => {
          throw new Error('trail down');
        }),
      ).rejects.toThrow('trail down');
      expect(await notes.receipts('t1')).toEqual([]);
      expect((await store.item('ana@example.test', a.id))?.status).toBe('reading');
      await notes.change('t2', { version: 0, reviewed: true }, 'ana@example.test', at(2));
      await expect(
        store.attach('ana@example.test', a.id, target('t2', false), 10, 'ana', at(3)),
      ).rejects.toBeInstanceOf(NotesConflictError);
      expect((await store.file('ana@example.test', a.id))?.content).toEqual(pdf('a.pdf'));
    });

    it('attaches an item once when two attach it at the same moment', async () => {
      const a = await store.receive('ana@example.test', file('a.pdf'), 'upload', at(1));
      const outcomes = await Promise.allSettled(
        ['t1', 't2'].map((transactionId) =>
          store.attach('ana@example.test', a.id, target(transactionId, false), 10, 'ana', at(2)),
        ),
      );
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      const refused = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
      expect(refused.reason).toBeInstanceOf(InboxItemAttachedError);
      const all = [...(await notes.receipts('t1')), ...(await notes.receipts('t2'))];
      expect(all).toHaveLength(1);
    });

    it('attaches for certain only as a transaction’s first receipt: of two matched at once, one lands and the other waits', async () => {
      const items = await Promise.all(
        ['a.pdf', 'b.pdf'].map((name) =>
          store.receive('ana@example.test', file(name), 'upload', at(1)),
        ),
      );
      const outcomes = await Promise.allSettled(
        items.map((item) =>
          store.attach('ana@example.test', item.id, target('t1', true), 10, 'ana', at(2)),
        ),
      );
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      const refused = outcomes.findIndex((o) => o.status === 'rejected');
      expect((outcomes[refused] as PromiseRejectedResult).reason).toBeInstanceOf(
        TooManyReceiptsError,
      );
      expect(await notes.receipts('t1')).toHaveLength(1);
      const waiting = items[refused]?.id ?? '';
      expect((await store.item('ana@example.test', waiting))?.status).not.toBe('attached');
      // Its person may still put it there as a second receipt.
      const confirmed = await store.attach(
        'ana@example.test',
        waiting,
        target('t1', false),
        10,
        'ana',
        at(3),
      );
      expect(confirmed?.item.status).toBe('attached');
      expect(await notes.receipts('t1')).toHaveLength(2);
    });

    it('discards only its person’s item', async () => {
      const a = await store.receive('ana@example.test', file('a.pdf'), 'upload', at(1));
      expect(await store.discard('ben@example.test', a.id)).toBeUndefined();
      expect((await store.discard('ana@example.test', a.id))?.id).toBe(a.id);
      expect(await store.item('ana@example.test', a.id)).toBeUndefined();
    });

    it(`holds ${INBOX_MAX_ITEMS} waiting items a person at most, attached ones not counted`, async () => {
      await engine.query(
        `INSERT INTO receipt_inbox_item
           (id, owner, file_name, media_type, byte_size, sha256, content, via, received_at, status)
         SELECT 'bulk-' || n, 'ana@example.test', 'a.pdf', 'application/pdf', 3,
                repeat('0', 64), '\\x414243'::bytea, 'upload', now(), 'reading'
           FROM generate_series(1, $1::int) AS n`,
        [INBOX_MAX_ITEMS - 1],
      );
      const last = await store.receive('ana@example.test', file('last.pdf'), 'upload', at(1));
      await expect(
        store.receive('ana@example.test', file('over.pdf'), 'upload', at(1)),
      ).rejects.toBeInstanceOf(InboxFullError);
      await store.receive('ben@example.test', file('ben.pdf'), 'upload', at(1));
      await store.attach('ana@example.test', last.id, target('t1', false), 10, 'ana', at(2));
      await store.receive('ana@example.test', file('room.pdf'), 'upload', at(1));
    });

    it('gives each person one forwarding secret until it is replaced', async () => {
      let made = 0;
      const make = () => `secret-${++made}-aaaaaaaaaaaaaaaa`;
      const first = await store.forwardingSecret('ana@example.test', make, at(1));
      expect(await store.forwardingSecret('ana@example.test', make, at(2))).toBe(first);
      expect(await store.ownerOfSecret(first)).toBe('ana@example.test');
      const next = await store.rotateForwardingSecret(
        'ana@example.test',
        'new-secret-bbbbbbbbbbbbbbbb',
        at(3),
      );
      expect(next).toBe('new-secret-bbbbbbbbbbbbbbbb');
      expect(await store.ownerOfSecret(first)).toBeUndefined();
      expect(await store.ownerOfSecret(next)).toBe('ana@example.test');
      expect(await store.forwardingSecret('ana@example.test', make, at(4))).toBe(next);
      expect(await store.ownerOfSecret('never-made')).toBeUndefined();
    });
  });
}
