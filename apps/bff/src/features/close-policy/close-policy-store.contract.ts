// One contract for the close policy's store, run on every engine the index runs on (the
// embedded engine and PostgreSQL): the default until set, what a change saves and answers,
// which memo categories it refuses, and that changes made at once are recorded one after the
// other (each one's "before" is the policy the other saved).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { SqlEngine } from '../../platform/sql/sql-engine';
import { NotesStore } from '../notes';
import { ClosePolicyStore, MemoCategoryUnusableError } from './close-policy-store';

const at = (minute: number) => new Date(Date.UTC(2026, 10, 30, 9, minute));

async function refusalOf(work: Promise<unknown>): Promise<MemoCategoryUnusableError> {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof MemoCategoryUnusableError)) throw new Error(`no refusal: ${error}`);
  return error;
}

export function closePolicyStoreContract(
  name: string,
  open: () => Promise<{ engine: SqlEngine; close(): Promise<void> }>,
): void {
  describe(`the close policy store: ${name}`, () => {
    let engine: SqlEngine;
    let close: () => Promise<void>;
    let store: ClosePolicyStore;
    let chart: NotesStore;
    beforeAll(async () => {
      ({ engine, close } = await open());
      store = new ClosePolicyStore(engine);
      chart = new NotesStore(engine);
    }, 60_000);
    afterAll(() => close?.());
    beforeEach(async () => {
      await engine.query('DELETE FROM close_policy');
      await engine.query('DELETE FROM merchant_rule');
      await engine.query('DELETE FROM transaction_notes');
      await engine.query('DELETE FROM accounting_category');
    });

    it('is the default until an admin sets one: receipts from $75, no memo categories', async () => {
      expect(await store.get()).toEqual({ receiptFromCents: 7_500, memoCategoryIds: [] });
    });

    it('saves a change, answers it with the policy it replaced, and reads it back', async () => {
      const software = await chart.createCategory({ code: '6100', name: 'Software' }, at(0));
      const travel = await chart.createCategory({ code: '6200', name: 'Travel' }, at(0));
      const first = await store.update(
        { receiptFromCents: 10_000, memoCategoryIds: [travel.id, software.id] },
        'ada@example.test',
        at(1),
      );
      expect(first.before).toEqual({ receiptFromCents: 7_500, memoCategoryIds: [] });
      expect(first.after).toEqual({
        receiptFromCents: 10_000,
        memoCategoryIds: [travel.id, software.id],
        updatedBy: 'ada@example.test',
        updatedAt: at(1).toISOString(),
      });
      expect(await store.get()).toEqual(first.after);

      // No receipt policy, no memo categories: a policy of its own, not the default.
      const second = await store.update(
        { receiptFromCents: null, memoCategoryIds: [] },
        'bo@example.test',
        at(2),
      );
      expect(second.before).toEqual(first.after);
      expect(await store.get()).toEqual({
        receiptFromCents: null,
        memoCategoryIds: [],
        updatedBy: 'bo@example.test',
        updatedAt: at(2).toISOString(),
      });
      expect(await engine.query('SELECT * FROM close_policy')).toHaveLength(1);
    });

    it('keeps amounts past 32 bits exactly', async () => {
      await store.update(
        { receiptFromCents: 100_000_000_000, memoCategoryIds: [] },
        'ada@example.test',
        at(1),
      );
      expect((await store.get()).receiptFromCents).toBe(100_000_000_000);
    });

    it('refuses a memo category that does not exist or is archived, and saves nothing', async () => {
      const current = await chart.createCategory({ code: '6100', name: 'Software' }, at(0));
      const old = await chart.createCategory({ code: '6900', name: 'Old' }, at(0));
      await chart.updateCategory(old.id, { archived: true }, at(0));

      const missing = await refusalOf(
        store.update(
          { receiptFromCents: 5_000, memoCategoryIds: [current.id, 'no-such-category'] },
          'ada@example.test',
          at(1),
        ),
      );
      expect(missing.missing).toEqual(['no-such-category']);
      const archived = await refusalOf(
        store.update(
          { receiptFromCents: 5_000, memoCategoryIds: [current.id, old.id] },
          'ada@example.test',
          at(1),
        ),
      );
      expect(archived.archived).toEqual([{ id: old.id, code: '6900', name: 'Old' }]);
      expect(await store.get()).toEqual({ receiptFromCents: 7_500, memoCategoryIds: [] });
    });

    it('keeps a memo category archived after the policy named it, until it is taken out', async () => {
      const meals = await chart.createCategory({ code: '6300', name: 'Meals' }, at(0));
      await store.update({ receiptFromCents: 7_500, memoCategoryIds: [meals.id] }, 'a', at(1));
      await chart.updateCategory(meals.id, { archived: true }, at(2));
      const { after } = await store.update(
        { receiptFromCents: 2_500, memoCategoryIds: [meals.id] },
        'a',
        at(3),
      );
      expect(after.memoCategoryIds).toEqual([meals.id]);
      await store.update({ receiptFromCents: 2_500, memoCategoryIds: [] }, 'a', at(4));
      await refusalOf(
        store.update({ receiptFromCents: 2_500, memoCategoryIds: [meals.id] }, 'a', at(5)),
      );
    });

    it('runs the audit hook in the change’s transaction: a hook that throws saves nothing', async () => {
      await expect(
        store.update({ receiptFromCents: 1, memoCategoryIds: [] }, 'a', at(1), async () => {
          throw new Error('the trail refused');
        }),
      ).rejects.toThrow('the trail refused');
      expect(await store.get()).toEqual({ receiptFromCents: 7_500, memoCategoryIds: [] });
    });

    it('records changes made at once one after the other: each replaced what the other saved', async () => {
      const amounts = [1_000, 2_000, 3_000, 4_000];
      const results = await Promise.all(
        amounts.map((cents, i) =>
          store.update({ receiptFromCents: cents, memoCategoryIds: [] }, `admin${i}`, at(i + 1)),
        ),
      );
      // A chain: one replaced the default, each other one replaced exactly one saved policy.
      const befores = results.map((r) => r.before.receiptFromCents).sort();
      const afters = results.map((r) => r.after.receiptFromCents);
      expect(befores.filter((b) => b === 7_500)).toHaveLength(1);
      const last = afters.find((a) => !befores.includes(a));
      expect((await store.get()).receiptFromCents).toBe(last);
      expect(new Set(befores.filter((b) => b !== 7_500)).size).toBe(amounts.length - 1);
    });
  });
}
