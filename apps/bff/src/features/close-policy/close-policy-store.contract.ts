// One contract for the close policy's store, run on every engine the index runs on (the
// embedded engine and PostgreSQL): the default (version 0) until set, what a change saves and
// answers, which memo categories it refuses, that a change made on a version the policy has
// moved on from is refused and saves nothing, that of changes made at once on one version
// exactly one is saved, that a change to the policy in force saves nothing, and that a policy
// an older build saved is version 1 once the database is upgraded.
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { applyIndexMigrations, INDEX_MIGRATIONS_TABLE } from '../../platform/sql/index-migrations';
import type { SqlEngine } from '../../platform/sql/sql-engine';
import { silentLogger } from '../../test/audit-cluster';
import { NotesStore } from '../notes';
import {
  ClosePolicyChangedError,
  ClosePolicyStore,
  MemoCategoryUnusableError,
} from './close-policy-store';

const at = (minute: number) => new Date(Date.UTC(2026, 10, 30, 9, minute));
const DEFAULT = { receiptFromCents: 7_500, memoCategoryIds: [], version: 0 };

async function rejectionOf(work: Promise<unknown>): Promise<unknown> {
  return work.then(
    () => {
      throw new Error('no refusal: the change was saved');
    },
    (e: unknown) => e,
  );
}

async function refusalOf(work: Promise<unknown>): Promise<MemoCategoryUnusableError> {
  const error = await rejectionOf(work);
  if (!(error instanceof MemoCategoryUnusableError)) throw new Error(`no refusal: ${error}`);
  return error;
}

async function conflictOf(work: Promise<unknown>): Promise<ClosePolicyChangedError> {
  const error = await rejectionOf(work);
  if (!(error instanceof ClosePolicyChangedError)) throw new Error(`no conflict: ${error}`);
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

    it('is the default until an admin sets one: receipts from $75, no memo categories, version 0', async () => {
      expect(await store.get()).toEqual(DEFAULT);
    });

    it('saves a change, answers it with the policy it replaced, and reads it back', async () => {
      const software = await chart.createCategory({ code: '6100', name: 'Software' }, at(0));
      const travel = await chart.createCategory({ code: '6200', name: 'Travel' }, at(0));
      const first = await store.update(
        { receiptFromCents: 10_000, memoCategoryIds: [travel.id, software.id], version: 0 },
        'ada@example.test',
        at(1),
      );
      expect(first.before).toEqual(DEFAULT);
      expect(first.after).toEqual({
        receiptFromCents: 10_000,
        memoCategoryIds: [travel.id, software.id],
        updatedBy: 'ada@example.test',
        updatedAt: at(1).toISOString(),
        version: 1,
      });
      expect(first.changed).toBe(true);
      expect(await store.get()).toEqual(first.after);

      // No receipt policy, no memo categories: a policy of its own, not the default.
      const second = await store.update(
        { receiptFromCents: null, memoCategoryIds: [], version: 1 },
        'bo@example.test',
        at(2),
      );
      expect(second.before).toEqual(first.after);
      expect(await store.get()).toEqual({
        receiptFromCents: null,
        memoCategoryIds: [],
        updatedBy: 'bo@example.test',
        updatedAt: at(2).toISOString(),
        version: 2,
      });
      expect(await engine.query('SELECT * FROM close_policy')).toHaveLength(1);
    });

    it('keeps amounts past 32 bits exactly', async () => {
      await store.update(
        { receiptFromCents: 100_000_000_000, memoCategoryIds: [], version: 0 },
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
          {
            receiptFromCents: 5_000,
            memoCategoryIds: [current.id, 'no-such-category'],
            version: 0,
          },
          'ada@example.test',
          at(1),
        ),
      );
      expect(missing.missing).toEqual(['no-such-category']);
      const archived = await refusalOf(
        store.update(
          { receiptFromCents: 5_000, memoCategoryIds: [current.id, old.id], version: 0 },
          'ada@example.test',
          at(1),
        ),
      );
      expect(archived.archived).toEqual([{ id: old.id, code: '6900', name: 'Old' }]);
      expect(await store.get()).toEqual(DEFAULT);
    });

    it('keeps a memo category archived after the policy named it, until it is taken out', async () => {
      const meals = await chart.createCategory({ code: '6300', name: 'Meals' }, at(0));
      await store.update(
        { receiptFromCents: 7_500, memoCategoryIds: [meals.id], version: 0 },
        'a',
        at(1),
      );
      await chart.updateCategory(meals.id, { archived: true }, at(2));
      const { after } = await store.update(
        { receiptFromCents: 2_500, memoCategoryIds: [meals.id], version: 1 },
        'a',
        at(3),
      );
      expect(after.memoCategoryIds).toEqual([meals.id]);
      await store.update({ receiptFromCents: 2_500, memoCategoryIds: [], version: 2 }, 'a', at(4));
      await refusalOf(
        store.update(
          { receiptFromCents: 2_500, memoCategoryIds: [meals.id], version: 3 },
          'a',
          at(5),
        ),
      );
    });

    it('runs the audit hook in the change’s transaction: a hook that throws saves nothing', async () => {
      await expect(
        store.update(
          { receiptFromCents: 1, memoCategoryIds: [], version: 0 },
          'a',
          at(1),
          async () => {
            throw new Error('the trail refused');
          },
        ),
      ).rejects.toThrow('the trail refused');
      expect(await store.get()).toEqual(DEFAULT);
    });

    it('refuses a change made on a version the policy moved on from, with the policy as it is, saving nothing', async () => {
      // Admin A sets $100 on the default; admin B, whose page showed the default, saves it.
      const a = await store.update(
        { receiptFromCents: 10_000, memoCategoryIds: [], version: 0 },
        'a@example.test',
        at(1),
      );
      const hook = vi.fn(async () => {});
      const stale = await conflictOf(
        store.update(
          { receiptFromCents: 7_500, memoCategoryIds: [], version: 0 },
          'b@example.test',
          at(2),
          hook,
        ),
      );
      expect(stale.current).toEqual(a.after);
      expect(hook).not.toHaveBeenCalled();
      expect(await store.get()).toEqual(a.after);
      // A version ahead of the policy's is no better, nor is the default's once one was set.
      await conflictOf(
        store.update({ receiptFromCents: 1, memoCategoryIds: [], version: 7 }, 'b', at(3)),
      );
      await engine.query('DELETE FROM close_policy');
      await conflictOf(
        store.update({ receiptFromCents: 1, memoCategoryIds: [], version: 1 }, 'b', at(3)),
      );
      expect(await store.get()).toEqual(DEFAULT);
    });

    it('of changes made at once on one version, saves exactly one and refuses the others with it', async () => {
      const amounts = [1_000, 2_000, 3_000, 4_000, 5_000, 6_000, 7_000, 8_000];
      const results = await Promise.allSettled(
        amounts.map((cents, i) =>
          store.update(
            { receiptFromCents: cents, memoCategoryIds: [], version: 0 },
            `admin${i}`,
            at(i + 1),
          ),
        ),
      );
      const saved = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
      const refused = results.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
      expect(saved).toHaveLength(1);
      const [winner] = saved;
      expect(winner?.before).toEqual(DEFAULT);
      expect(winner?.after.version).toBe(1);
      expect(refused).toHaveLength(amounts.length - 1);
      for (const error of refused) {
        expect(error).toBeInstanceOf(ClosePolicyChangedError);
        expect((error as ClosePolicyChangedError).current).toEqual(winner?.after);
      }
      expect(await store.get()).toEqual(winner?.after);
    });

    it('saves nothing for a change to the policy in force: no new version, no audit hook', async () => {
      const software = await chart.createCategory({ code: '6100', name: 'Software' }, at(0));
      const travel = await chart.createCategory({ code: '6200', name: 'Travel' }, at(0));
      const hook = vi.fn(async () => {});
      // The default, saved as it is.
      const same = await store.update(
        { receiptFromCents: 7_500, memoCategoryIds: [], version: 0 },
        'a',
        at(1),
        hook,
      );
      expect(same).toEqual({ before: DEFAULT, after: DEFAULT, changed: false });
      expect(await engine.query('SELECT * FROM close_policy')).toHaveLength(0);

      const { after: set } = await store.update(
        { receiptFromCents: 10_000, memoCategoryIds: [software.id, travel.id], version: 0 },
        'a',
        at(2),
      );
      // The same categories in another order are the same policy.
      const again = await store.update(
        { receiptFromCents: 10_000, memoCategoryIds: [travel.id, software.id], version: 1 },
        'b',
        at(3),
        hook,
      );
      expect(again).toEqual({ before: set, after: set, changed: false });
      expect(hook).not.toHaveBeenCalled();
      expect(await store.get()).toEqual(set);
    });

    it('a policy an older build saved (no version) is version 1 after the upgrade, and changes on it', async () => {
      const VERSIONED = '20261208090000000_close-policy-version';
      // The database as the build before this one left it, with a policy an admin set.
      await engine.query('ALTER TABLE close_policy DROP COLUMN version');
      await engine.query(`DELETE FROM ${INDEX_MIGRATIONS_TABLE} WHERE name = $1`, [VERSIONED]);
      await engine.query(
        `INSERT INTO close_policy (id, receipt_from_cents, memo_category_ids, updated_by, updated_at)
         VALUES (true, 10000, '{}', 'older@example.test', $1)`,
        [at(1).toISOString()],
      );
      expect(await applyIndexMigrations(engine, silentLogger)).toEqual([VERSIONED]);
      const upgraded = {
        receiptFromCents: 10_000,
        memoCategoryIds: [],
        updatedBy: 'older@example.test',
        updatedAt: at(1).toISOString(),
        version: 1,
      };
      expect(await store.get()).toEqual(upgraded);
      expect(
        (
          await conflictOf(
            store.update({ receiptFromCents: 7_500, memoCategoryIds: [], version: 0 }, 'b', at(2)),
          )
        ).current,
      ).toEqual(upgraded);
      const { after } = await store.update(
        { receiptFromCents: 7_500, memoCategoryIds: [], version: 1 },
        'b',
        at(3),
      );
      expect(after.version).toBe(2);
    });
  });
}
