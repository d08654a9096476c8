import { describe, expect, it } from 'vitest';
import { MemoryDayAggregateStore } from './day-aggregate-store';
import { aggregate, dayAggregateStoreContract } from './day-aggregate-store.contract';

dayAggregateStoreContract('MemoryDayAggregateStore', async () => new MemoryDayAggregateStore());

describe('MemoryDayAggregateStore', () => {
  it('keeps a bounded number of sub account × zone series, dropping the least recently used', async () => {
    const store = new MemoryDayAggregateStore(2);
    await store.put('a', 'UTC', [aggregate('2026-01-01')]);
    await store.put('b', 'UTC', [aggregate('2026-01-01')]);
    await store.get('a', 'UTC', ['2026-01-01']); // a is now the most recently used
    await store.put('c', 'UTC', [aggregate('2026-01-01')]);
    expect((await store.get('a', 'UTC', ['2026-01-01'])).size).toBe(1);
    expect((await store.get('b', 'UTC', ['2026-01-01'])).size).toBe(0);
    expect((await store.get('c', 'UTC', ['2026-01-01'])).size).toBe(1);
  });
});
