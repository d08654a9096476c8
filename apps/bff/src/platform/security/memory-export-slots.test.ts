import { describe, expect, it } from 'vitest';
import { CountedExportSlots } from '../../test/counted-stores';
import { MemoryExportSlots } from './export-slots';
import { exportSlotsContract } from './export-slots.contract';

exportSlotsContract('MemoryExportSlots', (caps) => new MemoryExportSlots(caps));

describe('MemoryExportSlots', () => {
  it('keeps nothing per person once every slot is released', async () => {
    const slots = new CountedExportSlots({ perPerson: 3, total: 100 });
    const grants = await Promise.all(
      Array.from({ length: 60 }, (_, i) => slots.acquire(`p${i % 20}@example.test`)),
    );
    expect(slots.held).toBe(60);
    expect(slots.people).toBe(20);
    for (const slot of grants) if (slot.granted) await slot.release();
    expect(slots.held).toBe(0);
    expect(slots.people).toBe(0);
  });
});
