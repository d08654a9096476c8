// One contract for the store of cards' owners and teams, run on every engine the product runs
// on (the embedded engine and PostgreSQL): an owner and a team given, read back with whether the
// owner's email is a person's; one spelling per owner and team however typed; the cards of an
// owner or a team; the list of owners and teams; both taken off; an owner and team given as they
// are write nothing; a change whose audit record fails is not made; reads beside changes see
// each change once made; changes made at once to one new owner all land, in one spelling.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { SqlEngine } from '../../platform/sql/sql-engine';
import { CardOwnersStore } from './card-owners-store';

const at = (minute: number) => new Date(Date.UTC(2026, 11, 2, 9, minute));

export function cardOwnersStoreContract(
  name: string,
  open: () => Promise<{ engine: SqlEngine; close(): Promise<void> }>,
): void {
  describe(`the card owners store: ${name}`, () => {
    let engine: SqlEngine;
    let close: () => Promise<void>;
    let store: CardOwnersStore;
    beforeAll(async () => {
      ({ engine, close } = await open());
      store = new CardOwnersStore(engine);
    }, 60_000);
    afterAll(() => close?.());
    beforeEach(async () => {
      await engine.query('DELETE FROM card_owner');
      await engine.query("DELETE FROM person WHERE email = 'ana@example.test'");
      // The table changed behind the store's back: a new store, as a new process would open.
      store = new CardOwnersStore(engine);
    });

    it('gives a card an owner and a team, saying who and when; reads them back per card', async () => {
      const done = await store.set(
        'c1',
        { owner: { name: 'Ana Ruiz', email: 'ana@example.test' }, team: 'Sales' },
        'admin@x.test',
        at(1),
      );
      expect(done).toEqual({
        before: undefined,
        after: {
          cardId: 'c1',
          owner: { name: 'Ana Ruiz', email: 'ana@example.test', person: false },
          team: 'Sales',
          updatedBy: 'admin@x.test',
          updatedAt: at(1).toISOString(),
        },
      });
      const changed = await store.set('c1', { owner: null, team: 'Ops' }, 'b@x.test', at(2));
      expect(changed.before?.owner?.name).toBe('Ana Ruiz');
      expect(changed.after).toEqual({
        cardId: 'c1',
        team: 'Ops',
        updatedBy: 'b@x.test',
        updatedAt: at(2).toISOString(),
      });
      expect([...(await store.ofCards(['c1', 'c2'])).keys()]).toEqual(['c1']);
    });

    it("says an owner is a person when their email is one in People's", async () => {
      await store.set(
        'c1',
        { owner: { name: 'Ana', email: 'ana@example.test' }, team: null },
        'a',
        at(1),
      );
      expect((await store.ofCards(['c1'])).get('c1')?.owner?.person).toBe(false);
      await engine.query(
        `INSERT INTO person (email, role, source, created_at, updated_at)
         VALUES ('ana@example.test', 'finance', 'invited', now(), now())`,
      );
      expect((await store.ofCards(['c1'])).get('c1')?.owner?.person).toBe(true);
      expect((await store.list()).owners).toEqual([
        { name: 'Ana', email: 'ana@example.test', person: true, cards: 1 },
      ]);
    });

    it('keeps one spelling of an owner and a team however typed; finds their cards by any spelling', async () => {
      await store.set('c1', { owner: { name: 'Ana Ruiz' }, team: 'Field Ops' }, 'a', at(1));
      const second = await store.set(
        'c2',
        { owner: { name: 'ana  RUIZ' }, team: 'field ops' },
        'a',
        at(2),
      );
      expect(second.after).toMatchObject({ owner: { name: 'Ana Ruiz' }, team: 'Field Ops' });
      await store.set('c3', { owner: { name: 'Bo' }, team: null }, 'a', at(3));
      // The only card of an owner may change its spelling.
      const respelled = await store.set('c3', { owner: { name: 'BO' }, team: null }, 'a', at(4));
      expect(respelled.after?.owner?.name).toBe('BO');
      expect(await store.cardsOf({ owner: ' ANA ruiz ' })).toEqual(new Set(['c1', 'c2']));
      expect(await store.cardsOf({ team: 'FIELD OPS', owner: 'bo' })).toEqual(new Set());
      expect(await store.cardsOf({ team: 'field ops' })).toEqual(new Set(['c1', 'c2']));
      expect(await store.cardsOf({})).toBeUndefined();
      expect(await store.list()).toEqual({
        owners: [
          { name: 'Ana Ruiz', cards: 2 },
          { name: 'BO', cards: 1 },
        ],
        teams: [{ name: 'Field Ops', cards: 2 }],
      });
      const cards = [
        { id: 'c1', name: 'one' },
        { id: 'c9', name: 'nine' },
      ] as unknown as Parameters<typeof store.withOwnership>[0];
      expect(await store.withOwnership(cards)).toEqual([
        { id: 'c1', name: 'one', owner: { name: 'Ana Ruiz' }, team: 'Field Ops' },
        { id: 'c9', name: 'nine' },
      ]);
    });

    it('takes both off; taking off what is not there changes and records nothing', async () => {
      await store.set('c1', { owner: { name: 'Ana' }, team: 'Sales' }, 'a', at(1));
      let recorded = 0;
      const off = await store.set('c1', { owner: null, team: null }, 'a', at(2), async () => {
        recorded += 1;
      });
      expect(off.after).toBeUndefined();
      expect(off.before?.team).toBe('Sales');
      expect(await store.ofCards(['c1'])).toEqual(new Map());
      await store.set('c1', { owner: null, team: null }, 'a', at(3), async () => {
        recorded += 1;
      });
      expect(recorded).toBe(1);
    });

    it('an owner and a team given as they are (as typed or as kept) write and record nothing', async () => {
      await store.set('c0', { owner: { name: 'Ana Ruiz' }, team: 'Sales' }, 'a', at(1));
      const first = await store.set(
        'c1',
        { owner: { name: 'Ana Ruiz', email: 'ana@example.test' }, team: 'Sales' },
        'a',
        at(2),
      );
      let recorded = 0;
      const record = async () => {
        recorded += 1;
      };
      for (const change of [
        { owner: { name: 'Ana Ruiz', email: 'ana@example.test' }, team: 'Sales' },
        // Another spelling of a name other cards have: kept in theirs, so the same.
        { owner: { name: 'ana  ruiz', email: 'ana@example.test' }, team: 'SALES' },
      ]) {
        const same = await store.set('c1', change, 'b', at(3), record);
        expect(same, JSON.stringify(change)).toEqual({ before: first.after, after: first.after });
      }
      expect(recorded).toBe(0);
      expect((await store.ofCards(['c1'])).get('c1')).toEqual(first.after);
      // One value different is a change (the email taken off), recorded.
      const changed = await store.set(
        'c1',
        { owner: { name: 'Ana Ruiz' }, team: 'Sales' },
        'b',
        at(4),
        record,
      );
      expect(recorded).toBe(1);
      expect(changed.after).toEqual({
        cardId: 'c1',
        owner: { name: 'Ana Ruiz' },
        team: 'Sales',
        updatedBy: 'b',
        updatedAt: at(4).toISOString(),
      });
    });

    it('takes any card id the card service gives, even one no engine can store as it is', async () => {
      const odd = 'a\u0000b\ud800';
      const done = await store.set(odd, { owner: { name: 'Ana' }, team: null }, 'a', at(1));
      expect(done.after?.cardId).toBe(odd);
      expect((await store.ofCards([odd])).get(odd)).toMatchObject({
        cardId: odd,
        owner: { name: 'Ana' },
      });
      const cards = [{ id: odd, name: 'Odd' }] as unknown as Parameters<
        typeof store.withOwnership
      >[0];
      expect(await store.withOwnership(cards)).toMatchObject([{ id: odd, owner: { name: 'Ana' } }]);
      expect((await store.cardsOf({ owner: 'ana' }))?.size).toBe(1);
    });

    it('makes no change whose audit record fails', async () => {
      await store.set('c1', { owner: { name: 'Ana' }, team: null }, 'a', at(1));
      await expect(
        store.set('c1', { owner: { name: 'Bo' }, team: 'Ops' }, 'a', at(2), async () => {
          throw new Error('audit trail unavailable');
        }),
      ).rejects.toThrow('audit trail unavailable');
      expect((await store.ofCards(['c1'])).get('c1')).toMatchObject({ owner: { name: 'Ana' } });
      expect((await store.ofCards(['c1'])).get('c1')?.team).toBeUndefined();
    });

    it('reads made while changes run see each change once it is made, never one undone', async () => {
      const cards = Array.from({ length: 6 }, (_, k) => `r-${k}`);
      expect((await store.ofCards(cards)).size).toBe(0);
      for (let round = 1; round <= 4; round++) {
        const name = `Owner ${round}`;
        // Reads before, during and after each card's change, all at once.
        const reads = await Promise.all(
          cards.flatMap((card, k) => [
            store.ofCards(cards),
            store.set(card, { owner: { name }, team: null }, 'a', at(round * 10 + k)),
            store.ofCards(cards),
          ]),
        );
        for (const read of reads) {
          if (!(read instanceof Map)) continue;
          for (const o of read.values()) {
            expect([`Owner ${round - 1}`, name]).toContain(o.owner?.name);
          }
        }
        const after = await store.ofCards(cards);
        expect([...after.values()].map((o) => o.owner?.name)).toEqual(cards.map(() => name));
      }
      await store.set('r-0', { owner: null, team: null }, 'a', at(59));
      expect([...(await store.ofCards(cards)).keys()]).toEqual(cards.slice(1));
    });

    it('changes made at once to one new owner all land, every card in the one spelling', async () => {
      const spellings = ['Cy Lee', 'cy lee', 'CY LEE', 'Cy  Lee', 'cY lEE', 'Cy Lee '];
      await Promise.all(
        Array.from({ length: 12 }, (_, k) =>
          store.set(
            `card-${k}`,
            { owner: { name: spellings[k % spellings.length] as string }, team: `Team ${k % 2}` },
            `admin${k}@x.test`,
            at(k),
          ),
        ),
      );
      const owned = await store.ofCards(Array.from({ length: 12 }, (_, k) => `card-${k}`));
      expect(owned.size).toBe(12);
      expect(new Set([...owned.values()].map((o) => o.owner?.name)).size).toBe(1);
      expect((await store.list()).owners).toHaveLength(1);
      expect((await store.list()).teams.map((t) => t.cards)).toEqual([6, 6]);
    });
  });
}
