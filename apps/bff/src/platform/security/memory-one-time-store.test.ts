import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../test/manual-clock';
import { MemoryOneTimeStore } from './one-time-store';
import { oneTimeStoreContract } from './one-time-store.contract';

oneTimeStoreContract('MemoryOneTimeStore', async (options) => {
  const clock = new ManualClock();
  const store = new MemoryOneTimeStore(clock, options?.limit);
  return { a: store, b: store, pass: async (ms) => clock.advance(ms) };
});

describe('MemoryOneTimeStore', () => {
  it('expires exactly at its time: a millisecond before, the value is still there', async () => {
    const clock = new ManualClock();
    const store = new MemoryOneTimeStore(clock);
    await store.put('early', 'v', 1_000);
    await store.put('due', 'v', 1_000);
    clock.advance(999);
    expect(await store.take('early')).toBe('v');
    clock.advance(1);
    expect(await store.take('due')).toBeUndefined();
  });

  it('drops expired values it is never asked for, now and then', async () => {
    const clock = new ManualClock();
    const store = new MemoryOneTimeStore(clock);
    for (let i = 0; i < 999; i++) await store.put(`abandoned-${i}`, 'v', 1_000);
    clock.advance(1_000);
    await store.put('fresh', 'v', 1_000);
    expect(store.size).toBe(1);
  });

  it('never holds more than its limit: the oldest live value makes room', async () => {
    const clock = new ManualClock();
    const store = new MemoryOneTimeStore(clock, 3);
    for (const key of ['a', 'b', 'c']) await store.put(key, key, 60_000);
    await store.put('a', 'a again', 60_000); // replaced, so now the newest
    await store.put('d', 'd', 60_000);
    expect(store.size).toBe(3);
    expect(await store.take('b')).toBeUndefined();
    expect(await store.take('c')).toBe('c');
    expect(await store.take('a')).toBe('a again');
    expect(await store.take('d')).toBe('d');
  });

  it('at its limit, expired values make room before any live one is dropped', async () => {
    const clock = new ManualClock();
    const store = new MemoryOneTimeStore(clock, 3);
    await store.put('oldest-live', 'kept', 60_000);
    await store.put('expiring', 'v', 1_000);
    await store.put('newer-live', 'kept too', 60_000);
    clock.advance(1_000);
    await store.put('new', 'v', 60_000);
    expect(store.size).toBe(3);
    expect(await store.take('oldest-live')).toBe('kept');
    expect(await store.take('newer-live')).toBe('kept too');
  });
});
