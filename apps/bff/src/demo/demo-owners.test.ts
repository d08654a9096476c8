import { describe, expect, it } from 'vitest';
import { CardOwnersStore } from '../features/cards';
import { applyIndexMigrations } from '../platform/sql/index-migrations';
import { silentLogger } from '../test/audit-cluster';
import { migratedMemoryEngine } from '../test/engines/embedded';
import { demoOwnerOf, seedDemoOwners } from './demo-owners';

describe("demo mode's card owners and teams", () => {
  it("take the holder from the card's name, and the team from its purpose or the holder", () => {
    expect(demoOwnerOf('Elena Walsh (office)')).toEqual({
      owner: 'Elena Walsh',
      team: 'Operations',
    });
    expect(demoOwnerOf('Elena Walsh (travel)')).toEqual({ owner: 'Elena Walsh', team: 'Sales' });
    const plain = demoOwnerOf('  Omar Diaz ');
    expect(plain?.owner).toBe('Omar Diaz');
    // The same team for the same holder at every start.
    expect(demoOwnerOf('Omar Diaz')).toEqual(plain);
    expect(['Sales', 'Engineering', 'Operations', 'Marketing']).toContain(plain?.team);
    expect(demoOwnerOf('(events)')).toBeUndefined();
  });

  it('are given once: a start after admins changed them leaves them be', async () => {
    const engine = await migratedMemoryEngine();
    try {
      await applyIndexMigrations(engine, silentLogger);
      const store = new CardOwnersStore(engine);
      const cards = [
        { id: 'c1', name: 'Elena Walsh (office)' },
        { id: 'c2', name: 'Elena Walsh (travel)' },
        { id: 'c3', name: 'Omar Diaz' },
      ];
      await seedDemoOwners(store, cards, new Date());
      const seeded = await store.list();
      expect(seeded.owners).toEqual([
        { name: 'Elena Walsh', cards: 2 },
        { name: 'Omar Diaz', cards: 1 },
      ]);
      await store.set('c3', { owner: null, team: null }, 'admin', new Date());
      await seedDemoOwners(store, cards, new Date());
      expect((await store.list()).owners).toEqual([{ name: 'Elena Walsh', cards: 2 }]);
    } finally {
      await engine.close();
    }
  });
});
