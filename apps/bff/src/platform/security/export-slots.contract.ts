// One behaviour suite for every ExportSlots implementation: in process, and shared by replicas.
import { describe, expect, it } from 'vitest';
import type { ExportCaps, ExportSlot, ExportSlots } from './export-slots';

type Granted = Extract<ExportSlot, { granted: true }>;

function granted(slot: ExportSlot): Granted {
  if (!slot.granted) throw new Error(`expected a slot, the ${slot.full} cap was full`);
  return slot;
}

export function exportSlotsContract(
  name: string,
  make: (caps: ExportCaps) => ExportSlots,
  options: {
    /** Two replicas' slots over one store (for an in-process one, the same object twice). */
    replicas?: (caps: ExportCaps) => [ExportSlots, ExportSlots];
  } = {},
) {
  const replicas =
    options.replicas ??
    ((caps: ExportCaps): [ExportSlots, ExportSlots] => {
      const slots = make(caps);
      return [slots, slots];
    });

  describe(`${name} (ExportSlots contract)`, () => {
    it("refuses a person's slot past their cap, and gives it again once one is released", async () => {
      const slots = make({ perPerson: 2, total: 8 });
      const first = granted(await slots.acquire('ada@example.test'));
      granted(await slots.acquire('ada@example.test'));
      expect(await slots.acquire('ada@example.test')).toEqual({ granted: false, full: 'person' });
      await first.release();
      granted(await slots.acquire('ada@example.test'));
    });

    it("releasing one of a person's slots frees that one only", async () => {
      const slots = make({ perPerson: 2, total: 8 });
      const first = granted(await slots.acquire('ada@example.test'));
      granted(await slots.acquire('ada@example.test'));
      await first.release();
      granted(await slots.acquire('ada@example.test'));
      expect(await slots.acquire('ada@example.test')).toEqual({ granted: false, full: 'person' });
    });

    it('refuses anyone past the total cap, naming it, while each person is under theirs', async () => {
      const slots = make({ perPerson: 2, total: 3 });
      const held = [
        granted(await slots.acquire('a@example.test')),
        granted(await slots.acquire('a@example.test')),
        granted(await slots.acquire('b@example.test')),
      ];
      expect(await slots.acquire('b@example.test')).toEqual({ granted: false, full: 'total' });
      expect(await slots.acquire('c@example.test')).toEqual({ granted: false, full: 'total' });
      await held[0]?.release();
      granted(await slots.acquire('c@example.test'));
    });

    it("one person's full cap does not stop another person", async () => {
      const slots = make({ perPerson: 1, total: 8 });
      granted(await slots.acquire('a@example.test'));
      expect((await slots.acquire('a@example.test')).granted).toBe(false);
      granted(await slots.acquire('b@example.test'));
    });

    it('a slot released twice frees one slot, not two', async () => {
      const slots = make({ perPerson: 2, total: 2 });
      const one = granted(await slots.acquire('a@example.test'));
      granted(await slots.acquire('b@example.test'));
      await one.release();
      await one.release();
      granted(await slots.acquire('c@example.test'));
      expect(await slots.acquire('d@example.test')).toEqual({ granted: false, full: 'total' });
    });

    it('a slot held past its lifetime is free again and its holder told; its late release frees no other', async () => {
      const lifetimeMs = 300;
      const slots = make({ perPerson: 1, total: 1, lifetimeMs });
      const taken = Date.now();
      const stuck = granted(await slots.acquire('ada@example.test'));
      expect(stuck.expired.aborted).toBe(false);
      expect(await slots.acquire('ada@example.test')).toEqual({ granted: false, full: 'person' });
      await new Promise((resolve) => stuck.expired.addEventListener('abort', resolve));
      expect(Date.now() - taken).toBeGreaterThanOrEqual(lifetimeMs - 5);
      const next = granted(await slots.acquire('ada@example.test'));
      await stuck.release();
      expect(await slots.acquire('bob@example.test')).toEqual({ granted: false, full: 'total' });
      await next.release();
      granted(await slots.acquire('bob@example.test'));
    });

    it('a slot released before its lifetime is not given back a second time when it would have ended', async () => {
      const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
      const slots = make({ perPerson: 2, total: 2, lifetimeMs: 600 });
      const early = granted(await slots.acquire('ada@example.test'));
      await early.release();
      await pause(300);
      // Both taken after the first was released; they end 300 ms after its lifetime would have.
      granted(await slots.acquire('ada@example.test'));
      granted(await slots.acquire('bob@example.test'));
      await pause(450);
      expect(early.expired.aborted).toBe(false);
      expect(await slots.acquire('cy@example.test')).toEqual({ granted: false, full: 'total' });
    });

    it('many acquisitions at once never grant more than the caps', async () => {
      const slots = make({ perPerson: 2, total: 5 });
      const people = ['a', 'b', 'c', 'd'].map((p) => `${p}@example.test`);
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) => slots.acquire(people[i % people.length] as string)),
      );
      const grants = results.flatMap((r, i) => (r.granted ? [people[i % people.length]] : []));
      expect(grants).toHaveLength(5);
      for (const person of people) {
        expect(grants.filter((p) => p === person).length).toBeLessThanOrEqual(2);
      }
    });

    it("a person's cap and the total count exports on both replicas together", async () => {
      const [a, b] = replicas({ perPerson: 2, total: 3 });
      const first = granted(await a.acquire('ada@example.test'));
      granted(await b.acquire('ada@example.test'));
      expect(await a.acquire('ada@example.test')).toEqual({ granted: false, full: 'person' });
      expect(await b.acquire('ada@example.test')).toEqual({ granted: false, full: 'person' });
      granted(await b.acquire('bob@example.test'));
      expect(await a.acquire('cy@example.test')).toEqual({ granted: false, full: 'total' });
      await first.release();
      granted(await b.acquire('ada@example.test'));
    });

    it('many acquisitions at once across both replicas never grant more than the caps', async () => {
      const [a, b] = replicas({ perPerson: 2, total: 5 });
      const people = ['a', 'b', 'c', 'd'].map((p) => `${p}@example.test`);
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          (i % 2 ? a : b).acquire(people[Math.floor(i / 2) % people.length] as string),
        ),
      );
      const grants = results.flatMap((r, i) =>
        r.granted ? [people[Math.floor(i / 2) % people.length]] : [],
      );
      expect(grants).toHaveLength(5);
      for (const person of people) {
        expect(grants.filter((p) => p === person).length).toBeLessThanOrEqual(2);
      }
    });
  });
}
