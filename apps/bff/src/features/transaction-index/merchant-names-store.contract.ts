// One contract for the store of the names admins give merchants, run on every engine the index
// runs on (the embedded engine and PostgreSQL): a new name renames a group, another merchant's
// name joins it to that merchant, a merchant renamed takes every group going by it along, a
// group named away is no longer its own name's, taking names off gives groups their own back,
// a change whose audit record fails is not made, and changes made at once all land.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { SqlEngine } from '../../platform/sql/sql-engine';
import { MerchantNamesStore } from './merchant-names-store';

const at = (minute: number) => new Date(Date.UTC(2026, 11, 2, 9, minute));
const to = (name: string) => ({ name, nameKey: name.toLowerCase() });

export function merchantNamesStoreContract(
  name: string,
  open: () => Promise<{ engine: SqlEngine; close(): Promise<void> }>,
): void {
  describe(`the merchant names store: ${name}`, () => {
    let engine: SqlEngine;
    let close: () => Promise<void>;
    let store: MerchantNamesStore;
    beforeAll(async () => {
      ({ engine, close } = await open());
      store = new MerchantNamesStore(engine);
    }, 60_000);
    afterAll(() => close?.());
    beforeEach(async () => {
      await engine.query('DELETE FROM index_merchant_name');
    });
    const names = async () =>
      (await store.all()).map((r) => `${r.merchantKey} → ${r.name} (${r.nameKey})`);

    it('holds none until an admin names one; a new name renames the group, saying who and when', async () => {
      expect(await store.all()).toEqual([]);
      const done = await store.name('acme', true, to('Acme Fuel'), 'admin@x.test', at(1));
      expect(done).toEqual({
        groups: ['acme'],
        before: [],
        after: [
          {
            merchantKey: 'acme',
            name: 'Acme Fuel',
            nameKey: 'acme fuel',
            updatedBy: 'admin@x.test',
            updatedAt: at(1).toISOString(),
          },
        ],
      });
      expect(await names()).toEqual(['acme → Acme Fuel (acme fuel)']);
    });

    it("another merchant's name joins the group to it; renaming that merchant takes both along", async () => {
      await store.name('acme fuel depot', true, to('Acme'), 'a@x.test', at(1));
      // "Acme" is a group of its own too: it goes by its new name with the one joined to it.
      const renamed = await store.name('acme', true, to('Acme Fuel'), 'b@x.test', at(2));
      expect(renamed.groups).toEqual(['acme', 'acme fuel depot']);
      expect(renamed.before.map((r) => r.merchantKey)).toEqual(['acme fuel depot']);
      expect(await names()).toEqual([
        'acme → Acme Fuel (acme fuel)',
        'acme fuel depot → Acme Fuel (acme fuel)',
      ]);
      // A merchant only a name makes (no group of its own) is renamed the same way.
      const again = await store.name('acme fuel', false, to('Acme Co'), 'c@x.test', at(3));
      expect(again.groups).toEqual(['acme', 'acme fuel depot']);
      expect(await names()).toEqual([
        'acme → Acme Co (acme co)',
        'acme fuel depot → Acme Co (acme co)',
      ]);
    });

    it('a group named away is no longer its own name’s; an unknown merchant changes nothing', async () => {
      await store.name('acme', true, to('Zeta'), 'a@x.test', at(1));
      const none = await store.name('acme', true, to('Other'), 'a@x.test', at(2));
      expect(none).toEqual({ groups: [], before: [], after: [] });
      expect((await store.name('nobody', false, to('X'), 'a@x.test', at(3))).groups).toEqual([]);
      expect(await names()).toEqual(['acme → Zeta (zeta)']);
    });

    it('taking the name off gives every group of the merchant its own name back', async () => {
      await store.name('acme', true, to('Acme Fuel'), 'a@x.test', at(1));
      await store.name('acme depot', true, to('Acme Fuel'), 'a@x.test', at(2));
      await store.name('zeta', true, to('Zeta Co'), 'a@x.test', at(3));
      const undone = await store.unname('acme fuel');
      expect(undone.groups).toEqual(['acme', 'acme depot']);
      expect(undone.before.map((r) => r.name)).toEqual(['Acme Fuel', 'Acme Fuel']);
      expect(await names()).toEqual(['zeta → Zeta Co (zeta co)']);
      expect((await store.unname('acme fuel')).groups).toEqual([]);
    });

    it('a change whose audit record cannot be written is not made', async () => {
      await store.name('acme', true, to('Acme Fuel'), 'a@x.test', at(1));
      const failing = async () => {
        throw new Error('the trail is down');
      };
      await expect(
        store.name('zeta', true, to('Zeta Co'), 'a@x.test', at(2), failing),
      ).rejects.toThrow('the trail is down');
      await expect(store.unname('acme fuel', failing)).rejects.toThrow('the trail is down');
      expect(await names()).toEqual(['acme → Acme Fuel (acme fuel)']);
    });

    it('changes made at once all land, one after the other', async () => {
      const groups = Array.from({ length: 12 }, (_, i) => `group ${i}`);
      await Promise.all(
        groups.map((g, i) => store.name(g, true, to('Together'), `a${i}@x.test`, at(i))),
      );
      expect((await store.all()).map((r) => r.merchantKey).sort()).toEqual([...groups].sort());
      // Renamed while others join: each join sees the rename before it or is taken by it.
      await Promise.all([
        store.name('together', false, to('Apart'), 'a@x.test', at(20)),
        store.name('late', true, to('Together'), 'b@x.test', at(21)),
      ]);
      const byName = new Map<string, number>();
      for (const r of await store.all()) byName.set(r.name, (byName.get(r.name) ?? 0) + 1);
      expect([...byName.values()].reduce((a, b) => a + b, 0)).toBe(13);
      expect(byName.get('Apart')).toBeGreaterThanOrEqual(12);
    });
  });
}
