// One contract for the notes store, run on every engine the index runs on (the embedded
// engine and PostgreSQL): what is saved, what a stale or reviewed change gets, and that of
// changes made at once from the same version exactly one is saved.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Audited, SqlEngine, SqlQueryable } from '../../platform/sql/sql-engine';
import {
  CategoryCodeTakenError,
  CategoryNotFoundError,
  CategoryUnusableError,
  DuplicateReceiptError,
  NotesConflictError,
  NotesStore,
  TooManyReceiptsError,
} from './notes-store';

const at = (minute: number) => new Date(Date.UTC(2026, 10, 27, 9, minute));

async function conflictOf(work: Promise<unknown>): Promise<NotesConflictError> {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof NotesConflictError)) throw new Error(`no conflict: ${error}`);
  return error;
}

export function notesStoreContract(
  name: string,
  open: () => Promise<{ engine: SqlEngine; close(): Promise<void> }>,
): void {
  describe(`the notes store: ${name}`, () => {
    let engine: SqlEngine;
    let close: () => Promise<void>;
    let store: NotesStore;
    beforeAll(async () => {
      ({ engine, close } = await open());
      store = new NotesStore(engine);
    }, 60_000);
    afterAll(() => close?.());
    beforeEach(async () => {
      await engine.query('DELETE FROM transaction_receipt');
      await engine.query('DELETE FROM merchant_rule');
      await engine.query('DELETE FROM transaction_notes');
      await engine.query('DELETE FROM accounting_category');
    });

    it('gives version 0 and nothing for a transaction nobody wrote notes on', async () => {
      expect(await store.get('t-none')).toEqual({
        transactionId: 't-none',
        memo: '',
        categoryId: null,
        tags: [],
        review: { state: 'unreviewed' },
        version: 0,
      });
      expect(await store.notesOf(['t-none'])).toEqual({ notes: new Map(), receipts: new Map() });
    });

    it('saves a change, counts versions, keeps each tag once whatever its case', async () => {
      const software = await store.createCategory({ code: '6100', name: 'Software' }, at(0));
      const first = await store.change(
        'tx/1 é',
        { version: 0, memo: 'Design seats\nfor Q4', tags: ['Q4', 'design', 'q4'] },
        'ana@example.test',
        at(1),
      );
      expect(first.before.version).toBe(0);
      expect(first.after).toEqual({
        transactionId: 'tx/1 é',
        memo: 'Design seats\nfor Q4',
        categoryId: null,
        tags: ['Q4', 'design'],
        review: { state: 'unreviewed' },
        version: 1,
        updatedBy: 'ana@example.test',
        updatedAt: at(1).toISOString(),
      });
      const second = await store.change(
        'tx/1 é',
        { version: 1, categoryId: software.id },
        'bo@example.test',
        at(2),
      );
      expect(second.before).toEqual(first.after);
      expect(second.after).toMatchObject({
        memo: 'Design seats\nfor Q4',
        tags: ['Q4', 'design'],
        categoryId: software.id,
        version: 2,
        updatedBy: 'bo@example.test',
      });
      expect(await store.get('tx/1 é')).toEqual(second.after);
      const page = await store.notesOf(['tx/1 é', 'other']);
      expect([...page.notes]).toEqual([['tx/1 é', second.after]]);
      expect(page.receipts).toEqual(new Map());
    });

    it('a change that leaves every value as it is writes nothing: the same version, the same notes', async () => {
      const first = await store.change(
        't-same',
        { version: 0, memo: 'taxi', tags: ['Trip', 'q1'] },
        'ana@example.test',
        at(1),
      );
      expect(first.after.version).toBe(1);
      for (const change of [
        { memo: 'taxi' },
        { tags: ['Trip', 'q1'] },
        { tags: ['Trip', 'q1', 'Q1'] },
        { categoryId: null },
        { reviewed: false },
        {},
      ]) {
        const same = await store.change(
          't-same',
          { version: 1, ...change },
          'bo@example.test',
          at(2),
        );
        expect(same, JSON.stringify(change)).toEqual({ before: first.after, after: first.after });
      }
      expect(await store.get('t-same')).toEqual(first.after);
      // One value different is a change, on that version.
      const changed = await store.change(
        't-same',
        { version: 1, memo: 'taxi', tags: ['Trip'] },
        'bo@example.test',
        at(3),
      );
      expect(changed.after).toMatchObject({
        version: 2,
        tags: ['Trip'],
        updatedBy: 'bo@example.test',
      });
    });

    it('refuses a change made on an older version, with the notes as they are, saving nothing', async () => {
      await store.change('t1', { version: 0, memo: 'first' }, 'ana@example.test', at(1));
      const conflict = await conflictOf(
        store.change('t1', { version: 0, memo: 'second' }, 'bo@example.test', at(2)),
      );
      expect(conflict.reason).toBe('changed');
      expect(conflict.current).toMatchObject({ memo: 'first', version: 1 });
      expect(await store.get('t1')).toMatchObject({ memo: 'first', version: 1 });
      // A version from the future is as stale as one from the past.
      expect(
        (await conflictOf(store.change('t1', { version: 5, memo: 'x' }, 'bo@example.test', at(3))))
          .reason,
      ).toBe('changed');
    });

    it('reviews, keeps the first reviewer, and changes a reviewed transaction only when reopened', async () => {
      await store.change('t1', { version: 0, memo: 'lunch' }, 'ana@example.test', at(1));
      const reviewed = await store.change(
        't1',
        { version: 1, reviewed: true },
        'bo@example.test',
        at(2),
      );
      expect(reviewed.after.review).toEqual({
        state: 'reviewed',
        by: 'bo@example.test',
        at: at(2).toISOString(),
      });
      // Reviewed again: nothing changes, so nothing is written (the version stays).
      const again = await store.change(
        't1',
        { version: 2, reviewed: true },
        'cy@example.test',
        at(3),
      );
      expect(again.after).toEqual(reviewed.after);
      expect(await store.get('t1')).toEqual(reviewed.after);

      const refused = await conflictOf(
        store.change('t1', { version: 2, memo: 'team lunch' }, 'cy@example.test', at(4)),
      );
      expect(refused.reason).toBe('reviewed');
      expect(refused.current).toMatchObject({ memo: 'lunch', version: 2 });
      // Saving and reviewing in one change is refused too: it is already reviewed.
      expect(
        (
          await conflictOf(
            store.change(
              't1',
              { version: 2, tags: ['x'], reviewed: true },
              'cy@example.test',
              at(4),
            ),
          )
        ).reason,
      ).toBe('reviewed');

      const reopened = await store.change(
        't1',
        { version: 2, memo: 'team lunch', reviewed: false },
        'cy@example.test',
        at(5),
      );
      expect(reopened.after).toMatchObject({
        memo: 'team lunch',
        review: { state: 'unreviewed' },
        version: 3,
      });
      // Notes and review in one change (as a bulk "categorise and review" sends).
      const both = await store.change(
        't2',
        { version: 0, memo: 'taxi', reviewed: true },
        'ana@example.test',
        at(6),
      );
      expect(both.after).toMatchObject({
        memo: 'taxi',
        review: { state: 'reviewed', by: 'ana@example.test' },
      });
    });

    it('keeps the chart of accounts: codes unique whatever their case, renamed, archived', async () => {
      const software = await store.createCategory({ code: 'SW-1', name: 'Software' }, at(0));
      expect(software).toEqual({
        id: expect.any(String),
        code: 'SW-1',
        name: 'Software',
        archived: false,
      });
      await expect(
        store.createCategory({ code: 'sw-1', name: 'Other' }, at(1)),
      ).rejects.toBeInstanceOf(CategoryCodeTakenError);
      const travel = await store.createCategory({ code: '6200', name: 'Travel' }, at(1));
      await expect(store.updateCategory(travel.id, { code: 'SW-1' }, at(2))).rejects.toBeInstanceOf(
        CategoryCodeTakenError,
      );
      const renamed = await store.updateCategory(travel.id, { name: 'Travel & meals' }, at(2));
      expect(renamed.before).toEqual(travel);
      expect(renamed.after).toEqual({ ...travel, name: 'Travel & meals' });
      await expect(store.updateCategory('no-such-id', { name: 'x' }, at(3))).rejects.toBeInstanceOf(
        CategoryNotFoundError,
      );
      expect((await store.categories()).map((c) => c.code)).toEqual(['6200', 'SW-1']);
      expect(await store.category(software.id)).toEqual(software);
    });

    it('of imports and adds of the same codes at once, one comes after the other: no import refused for a code another brought', async () => {
      for (let round = 0; round < 5; round++) {
        await engine.query('DELETE FROM accounting_category');
        const file = (name: string) => [
          { code: '6100', name },
          { code: '6200', name: `${name} travel` },
        ];
        const [first, second, added] = await Promise.allSettled([
          store.importCategories(file('A'), at(1)),
          store.importCategories(file('B'), at(1)),
          store.createCategory({ code: '6200', name: 'Added' }, at(1)),
        ]);
        expect(first.status).toBe('fulfilled');
        expect(second.status).toBe('fulfilled');
        // The add either came first (and an import renamed it) or found the code taken.
        if (added.status === 'rejected') {
          expect(added.reason).toBeInstanceOf(CategoryCodeTakenError);
          expect((added.reason as CategoryCodeTakenError).code).toBe('6200');
        }
        // Each code once, both named by the import that came last: neither half-applied.
        const chart = (await store.categories()).map((c) => `${c.code} ${c.name}`);
        expect([
          ['6100 A', '6200 A travel'],
          ['6100 B', '6200 B travel'],
        ]).toContainEqual(chart);
      }
    });

    it('books to an existing, current category; an archived one stays where it is but is given to no new row', async () => {
      const old = await store.createCategory({ code: '7000', name: 'Old' }, at(0));
      await store.change('t1', { version: 0, categoryId: old.id }, 'ana@example.test', at(1));
      await store.updateCategory(old.id, { archived: true }, at(2));
      await expect(
        store.change('t2', { version: 0, categoryId: old.id }, 'ana@example.test', at(3)),
      ).rejects.toEqual(new CategoryUnusableError('archived'));
      await expect(
        store.change('t2', { version: 0, categoryId: 'missing' }, 'ana@example.test', at(3)),
      ).rejects.toEqual(new CategoryUnusableError('missing'));
      expect(await store.get('t2')).toMatchObject({ version: 0 });
      // The row that has it keeps it through other changes, and can let it go.
      const memo = await store.change(
        't1',
        { version: 1, memo: 'kept' },
        'ana@example.test',
        at(4),
      );
      expect(memo.after.categoryId).toBe(old.id);
      const cleared = await store.change(
        't1',
        { version: 2, categoryId: null },
        'ana@example.test',
        at(5),
      );
      expect(cleared.after.categoryId).toBeNull();
    });

    it('of changes made at once on one version, saves exactly one (first notes and later ones)', async () => {
      const race = (version: number) =>
        Promise.allSettled(
          Array.from({ length: 8 }, (_, i) =>
            // Each writer's memo its own, in each round: none is the memo already there.
            store.change(
              't-race',
              { version, memo: `writer ${version}.${i}` },
              `p${i}@example.test`,
              at(i),
            ),
          ),
        );
      for (const version of [0, 1]) {
        const results = await race(version);
        const saved = results.filter((r) => r.status === 'fulfilled');
        expect(saved).toHaveLength(1);
        for (const r of results) {
          if (r.status === 'rejected') {
            expect(r.reason).toBeInstanceOf(NotesConflictError);
            expect((r.reason as NotesConflictError).current.version).toBe(version + 1);
          }
        }
        const winner = (saved[0] as PromiseFulfilledResult<{ after: { memo: string } }>).value;
        expect(await store.get('t-race')).toMatchObject({
          version: version + 1,
          memo: winner.after.memo,
        });
      }
    });

    it('keeps receipts byte for byte, a few per transaction, none added or removed once reviewed', async () => {
      const bytes = Buffer.from([0, 1, 2, 250, 255, 0, 128]);
      const file = { fileName: 'lunch.png', mediaType: 'image/png', content: bytes };
      const added = await store.addReceipt('t1', file, 2, 'ana@example.test', at(1));
      expect(added.receipt).toMatchObject({
        transactionId: 't1',
        fileName: 'lunch.png',
        mediaType: 'image/png',
        byteSize: 7,
        sha256: createHash('sha256').update(bytes).digest('hex'),
        uploadedBy: 'ana@example.test',
      });
      // A receipt is not an edit of the notes: there are still none, at version 0.
      expect(added.notes).toEqual(await store.get('t1'));
      expect(added.notes.version).toBe(0);
      const read = await store.receiptFile('t1', added.receipt.id);
      expect(read?.content).toEqual(bytes);
      // Only through its own transaction.
      expect(await store.receiptFile('t2', added.receipt.id)).toBeUndefined();
      // The same bytes again are the receipt already there, whoever sends them, under any name.
      const again = await store
        .addReceipt('t1', { ...file, fileName: 'scan.png' }, 2, 'bo@example.test', at(2))
        .catch((error: unknown) => error);
      expect(again).toBeInstanceOf(DuplicateReceiptError);
      expect((again as DuplicateReceiptError).existing).toEqual(added.receipt);
      const other = (n: number) => ({ ...file, content: Buffer.concat([bytes, Buffer.from([n])]) });
      await store.addReceipt('t1', other(1), 2, 'ana@example.test', at(2));
      await expect(store.addReceipt('t1', other(2), 2, 'ana@example.test', at(3))).rejects.toEqual(
        new TooManyReceiptsError(2),
      );
      expect((await store.receipts('t1')).map((r) => r.uploadedAt)).toEqual([
        at(1).toISOString(),
        at(2).toISOString(),
      ]);
      expect((await store.notesOf(['t1', 't2'])).receipts).toEqual(new Map([['t1', 2]]));

      const notes = await store.get('t1');
      await store.change(
        't1',
        { version: notes.version, reviewed: true },
        'bo@example.test',
        at(4),
      );
      expect(
        (await conflictOf(store.addReceipt('t1', file, 5, 'ana@example.test', at(5)))).reason,
      ).toBe('reviewed');
      expect(
        (await conflictOf(store.removeReceipt('t1', added.receipt.id, 'ana@example.test', at(5))))
          .reason,
      ).toBe('reviewed');
      const reopened = await store.get('t1');
      await store.change(
        't1',
        { version: reopened.version, reviewed: false },
        'bo@example.test',
        at(6),
      );
      expect(
        (await store.removeReceipt('t1', added.receipt.id, 'ana@example.test', at(7)))?.id,
      ).toBe(added.receipt.id);
      expect(
        await store.removeReceipt('t1', added.receipt.id, 'ana@example.test', at(8)),
      ).toBeUndefined();
      expect(await store.receipts('t1')).toHaveLength(1);
      // Removed, the same bytes may come back; another transaction may have them all along.
      await store.addReceipt('t1', file, 2, 'ana@example.test', at(9));
      await store.addReceipt('t2', file, 2, 'ana@example.test', at(9));
      expect((await store.notesOf(['t1', 't2'])).receipts).toEqual(
        new Map([
          ['t1', 2],
          ['t2', 1],
        ]),
      );
    });

    it("adds and removes receipts without moving the notes' version: a change made on the version seen before is saved", async () => {
      const pdf = (n: number) => ({
        fileName: 'r.pdf',
        mediaType: 'application/pdf',
        content: Buffer.from(`%PDF- ${n}`),
      });
      const seen = await store.change(
        't-own',
        { version: 0, memo: 'Taxi' },
        'ana@example.test',
        at(1),
      );
      const { receipt } = await store.addReceipt('t-own', pdf(1), 3, 'ana@example.test', at(2));
      await store.addReceipt('t-own', pdf(2), 3, 'bo@example.test', at(3));
      expect(await store.removeReceipt('t-own', receipt.id, 'ana@example.test', at(4))).toEqual(
        receipt,
      );
      expect(await store.get('t-own')).toEqual(seen.after);
      const memo = await store.change(
        't-own',
        { version: seen.after.version, memo: 'Taxi to the airport' },
        'ana@example.test',
        at(5),
      );
      expect(memo.after).toMatchObject({ memo: 'Taxi to the airport', version: 2 });
      // Someone else's change of the notes still makes the version seen stale.
      await store.change('t-own', { version: 2, tags: ['travel'] }, 'bo@example.test', at(6));
      await store.addReceipt('t-own', pdf(3), 3, 'ana@example.test', at(7));
      const stale = await conflictOf(
        store.change('t-own', { version: 2, memo: 'Taxi, two people' }, 'ana@example.test', at(8)),
      );
      expect(stale.reason).toBe('changed');
      expect(stale.current).toMatchObject({ version: 3, updatedBy: 'bo@example.test' });
    });

    // The first notes of a transaction and a receipt at once: no receipt lands on a transaction
    // a review has already closed, though the receipt writes no notes row to meet it on.
    it.each([
      [
        'one change',
        (s: NotesStore, hook: Audited<unknown>) =>
          s.change('t-first', { version: 0, reviewed: true }, 'bo@example.test', at(1), hook),
      ],
      [
        'a change of many',
        (s: NotesStore, hook: Audited<unknown>) =>
          s.changeMany(['t-other', 't-first'], { reviewed: true }, 'bo@example.test', at(1), hook),
      ],
    ])(
      'refuses a receipt sent while %s reviews a transaction with no notes yet',
      async (_, review) => {
        const file = {
          fileName: 'r.pdf',
          mediaType: 'application/pdf',
          content: Buffer.from('%PDF-'),
        };
        let entered!: () => void;
        let release!: () => void;
        const inside = new Promise<void>((done) => {
          entered = done;
        });
        const held = new Promise<void>((done) => {
          release = done;
        });
        // The review waits, uncommitted, in its audit hook while the receipt is sent.
        const reviewing = review(store, async () => {
          entered();
          await held;
        });
        await inside;
        const receipt = store.addReceipt('t-first', file, 3, 'ana@example.test', at(2)).then(
          () => 'added',
          (error: unknown) => error,
        );
        await new Promise((done) => setTimeout(done, 300));
        release();
        await reviewing;
        const refused = await receipt;
        expect(refused).toBeInstanceOf(NotesConflictError);
        expect((refused as NotesConflictError).reason).toBe('reviewed');
        expect(await store.receipts('t-first')).toEqual([]);
      },
    );

    it('of changes of many at once over the same transactions without notes, whatever their order, none is stuck waiting for another', async () => {
      const ids = Array.from({ length: 12 }, (_, i) => `t-many-${i}`);
      const results = await Promise.allSettled(
        Array.from({ length: 6 }, (_, i) =>
          store.changeMany(
            i % 2 ? ids : [...ids].reverse(),
            { addTags: [`batch-${i}`] },
            `p${i}@example.test`,
            at(i),
          ),
        ),
      );
      // The first saves them all; one that waited finds notes it did not see: a conflict, never
      // a deadlock.
      expect(results.filter((r) => r.status === 'fulfilled').length).toBeGreaterThan(0);
      for (const r of results) {
        if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(NotesConflictError);
      }
      expect((await store.notesOf(ids)).notes.size).toBe(ids.length);
    });

    it('of uploads at once to a transaction without notes, keeps exactly as many as it may have', async () => {
      const file = (i: number) => ({
        fileName: 'r.pdf',
        mediaType: 'application/pdf',
        content: Buffer.from(`%PDF- ${i}`),
      });
      const results = await Promise.allSettled(
        Array.from({ length: 6 }, (_, i) =>
          store.addReceipt('t-flood', file(i), 3, `p${i}@example.test`, at(i)),
        ),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
      for (const r of results) {
        if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(TooManyReceiptsError);
      }
      expect(await store.receipts('t-flood')).toHaveLength(3);
      expect((await store.get('t-flood')).version).toBe(0);
    });

    it('of the same file sent at once, keeps one', async () => {
      const file = {
        fileName: 'r.pdf',
        mediaType: 'application/pdf',
        content: Buffer.from('%PDF-'),
      };
      const results = await Promise.allSettled(
        Array.from({ length: 4 }, (_, i) =>
          store.addReceipt('t-twice', file, 10, `p${i}@example.test`, at(i)),
        ),
      );
      const kept = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value.receipt] : []));
      expect(kept).toHaveLength(1);
      for (const r of results) {
        if (r.status === 'rejected') {
          expect(r.reason).toBeInstanceOf(DuplicateReceiptError);
          expect((r.reason as DuplicateReceiptError).existing).toEqual(kept[0]);
        }
      }
      expect(await store.receipts('t-twice')).toEqual(kept);
    });

    it('runs each change’s audit hook last in its transaction: one that throws leaves nothing changed', async () => {
      const refused = async () => {
        throw new Error('the trail refused the record');
      };
      const seen: unknown[] = [];
      // The hook reads through the change's own transaction and sees the change made.
      const sees = async (result: unknown, tx: SqlQueryable) => {
        const [row] = await tx.query<{ n: number }>(
          'SELECT (SELECT count(*) FROM accounting_category)::int + (SELECT count(*) FROM merchant_rule)::int + (SELECT count(*) FROM transaction_receipt)::int AS n',
        );
        seen.push([result === undefined ? 'none' : 'result', row?.n]);
      };
      const rejects = (p: Promise<unknown>) => expect(p).rejects.toThrow('the trail refused');
      const file = {
        fileName: 'r.pdf',
        mediaType: 'application/pdf',
        content: Buffer.from('%PDF-'),
      };

      await rejects(store.createCategory({ code: 'H-1', name: 'Hooked' }, at(0), refused));
      await rejects(store.importCategories([{ code: 'H-2', name: 'Imported' }], at(0), refused));
      expect(await store.categories()).toEqual([]);
      const category = await store.createCategory({ code: 'H-1', name: 'Hooked' }, at(0), sees);
      await rejects(store.updateCategory(category.id, { name: 'Renamed' }, at(1), refused));
      expect(await store.category(category.id)).toEqual(category);

      await rejects(
        store.createRule({ merchant: 'Blue Bottle', categoryId: category.id }, 'a', at(1), refused),
      );
      expect(await store.rules()).toEqual([]);
      const rule = await store.createRule(
        { merchant: 'Blue Bottle', categoryId: category.id },
        'a',
        at(1),
        sees,
      );
      await rejects(store.deleteRule(rule.id, refused));
      expect(await store.rules()).toEqual([rule]);

      await rejects(store.change('t-h', { version: 0, memo: 'x' }, 'a', at(2), refused));
      await rejects(store.changeMany(['t-h', 't-i'], { addTags: ['q4'] }, 'a', at(2), refused));
      expect(await store.notesOf(['t-h', 't-i'])).toEqual({
        notes: new Map(),
        receipts: new Map(),
      });

      await rejects(store.addReceipt('t-h', file, 3, 'a', at(3), refused));
      expect(await store.receipts('t-h')).toEqual([]);
      const { receipt } = await store.addReceipt('t-h', file, 3, 'a', at(3), sees);
      await rejects(store.removeReceipt('t-h', receipt.id, 'a', at(4), refused));
      expect(await store.receipts('t-h')).toEqual([receipt]);
      expect((await store.get('t-h')).version).toBe(0);
      // Nothing removed, nothing to record: the hook is not run.
      expect(await store.deleteRule('no-such-rule', refused)).toBeUndefined();
      expect(
        await store.removeReceipt('t-h', 'no-such-receipt', 'a', at(5), refused),
      ).toBeUndefined();
      expect(seen).toEqual([
        ['result', 1],
        ['result', 2],
        ['result', 3],
      ]);
    });
  });
}
