import { describe, expect, it } from 'vitest';
import { emptyDay } from '../../features/overview/day-aggregate';
import { type DayAggregate, estimatedBytes, MemoryDayAggregateStore } from './day-aggregate-store';
import { aggregate, dayAggregateStoreContract } from './day-aggregate-store.contract';

dayAggregateStoreContract('MemoryDayAggregateStore', async () => new MemoryDayAggregateStore());

/** `n` days from 2026-01-01 on, each with `merchants` merchants. */
function days(n: number, merchants = 5): DayAggregate[] {
  return Array.from({ length: n }, (_, i) => {
    const day = aggregate(new Date(Date.UTC(2026, 0, 1 + i)).toISOString().slice(0, 10));
    for (let m = 0; m < merchants; m++) day.merchants[`Merchant ${m}`] = [m, 1];
    return day;
  });
}
const sizeOf = (list: DayAggregate[]) => list.reduce((n, d) => n + estimatedBytes(d), 0);

describe('MemoryDayAggregateStore', () => {
  it('keeps a bounded number of sub account × zone series, dropping the least recently used', async () => {
    const store = new MemoryDayAggregateStore({ maxSeries: 2 });
    await store.put('a', 'UTC', [aggregate('2026-01-01')]);
    await store.put('b', 'UTC', [aggregate('2026-01-01')]);
    await store.get('a', 'UTC', ['2026-01-01']); // a is now the most recently used
    await store.put('c', 'UTC', [aggregate('2026-01-01')]);
    expect((await store.get('a', 'UTC', ['2026-01-01'])).size).toBe(1);
    expect((await store.get('b', 'UTC', ['2026-01-01'])).size).toBe(0);
    expect((await store.get('c', 'UTC', ['2026-01-01'])).size).toBe(1);
  });

  it('keeps a bounded number of bytes, dropping the least recently used series', async () => {
    const year = days(366);
    const store = new MemoryDayAggregateStore({ maxBytes: Math.floor(sizeOf(year) * 2.5) });
    const all = year.map((d) => d.day);
    await store.put('a', 'UTC', year);
    await store.put('b', 'UTC', year);
    await store.get('a', 'UTC', all); // a is now the most recently used
    await store.put('c', 'UTC', year);
    expect(store.bytes).toBeLessThanOrEqual(sizeOf(year) * 2.5);
    expect((await store.get('a', 'UTC', all)).size).toBe(366);
    expect((await store.get('b', 'UTC', all)).size).toBe(0);
    expect((await store.get('c', 'UTC', all)).size).toBe(366);
    // Many series (as many zones would make), all within the bound.
    for (let i = 0; i < 50; i++) await store.put(`s${i}`, 'UTC', year);
    expect(store.bytes).toBeLessThanOrEqual(sizeOf(year) * 2.5);
    expect(store.bytes).toBeGreaterThanOrEqual(sizeOf(year) * 2);
  });

  it('a day put again is counted once', async () => {
    const store = new MemoryDayAggregateStore();
    const year = days(366);
    await store.put('a', 'UTC', year);
    await store.put('a', 'UTC', year);
    await store.put('a', 'UTC', year.slice(0, 10));
    expect(store.bytes).toBe(sizeOf(year));
  });

  it('one series past the bound drops its least recently written days, never the last put', async () => {
    const many = days(1_000, 0);
    const store = new MemoryDayAggregateStore({ maxBytes: sizeOf(many.slice(0, 400)) });
    for (let i = 0; i < 1_000; i += 100) await store.put('a', 'UTC', many.slice(i, i + 100));
    expect(store.bytes).toBeLessThanOrEqual(sizeOf(many.slice(0, 400)));
    const kept = await store.get(
      'a',
      'UTC',
      many.map((d) => d.day),
    );
    expect(kept.size).toBe(400);
    expect([...kept.keys()].sort()[0]).toBe(many[600]?.day);
    // A single put larger than the bound is kept whole: the walk's work is not thrown away.
    const huge = new MemoryDayAggregateStore({ maxBytes: 1 });
    await huge.put('a', 'UTC', many.slice(0, 10));
    expect((await huge.get('a', 'UTC', [many[0]?.day ?? ''])).size).toBe(1);
  });

  it('estimates more for a day with more in it', () => {
    const empty = emptyDay('2026-01-01');
    const busy = days(1, 30)[0] ?? empty;
    expect(estimatedBytes(empty)).toBeGreaterThan(0);
    expect(estimatedBytes(busy)).toBeGreaterThan(estimatedBytes(empty) + 30 * 100);
  });
});
