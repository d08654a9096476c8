// The sessions' read cache (cached-session-store.ts over outage-read-cache.ts), against a store
// that counts its reads and can be made unavailable: how long a read is used, how long it stands
// in for an unavailable store and never past that, what forgets it, and its bound.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../test/manual-clock';
import { StoreUnavailableError } from '../store-unavailable';
import { CachedSessionStore } from './cached-session-store';
import { FRESH_MS, OutageReadCache, RETRY_AFTER_FAILURE_MS, STALE_MS } from './outage-read-cache';
import { MemorySessionStore, type SessionRecord, type SessionStore } from './session-store';

const TTL = 15 * 60_000;

/** A memory store whose reads are counted, and which throws `failure` while it is set. */
class FlakyStore implements SessionStore {
  reads = 0;
  failure: Error | undefined;
  constructor(private readonly inner: SessionStore) {}
  private check() {
    if (this.failure) throw this.failure;
  }
  async get(key: string) {
    this.reads++;
    this.check();
    return this.inner.get(key);
  }
  async set(key: string, record: SessionRecord, ttl: number) {
    this.check();
    return this.inner.set(key, record, ttl);
  }
  async refresh(key: string, record: SessionRecord, ttl: number) {
    this.check();
    return this.inner.refresh(key, record, ttl);
  }
  async delete(key: string) {
    this.check();
    return this.inner.delete(key);
  }
}

const unavailable = () => new StoreUnavailableError('postgres', 'a test');

function setUp() {
  const clock = new ManualClock();
  const shared = new MemorySessionStore(clock);
  const replica = () => {
    const flaky = new FlakyStore(shared);
    return { flaky, store: new CachedSessionStore(flaky, clock) };
  };
  const record = (): SessionRecord => ({
    email: 'ada@example.test',
    role: 'finance',
    createdAt: clock.now(),
    lastSeenAt: clock.now(),
  });
  return { clock, shared, replica, record };
}

describe('CachedSessionStore', () => {
  it('a session read is used for less than FRESH_MS without asking the store; then it is read again', async () => {
    const { clock, replica, record } = setUp();
    const a = replica();
    await a.store.set('k', record(), TTL);
    clock.advance(FRESH_MS);
    expect(await a.store.get('k')).toMatchObject({ email: 'ada@example.test' });
    expect(a.flaky.reads).toBe(1);
    clock.advance(FRESH_MS - 1);
    await a.store.get('k');
    expect(a.flaky.reads).toBe(1);
    clock.advance(1);
    await a.store.get('k');
    expect(a.flaky.reads).toBe(2);
  });

  it('deleted on another replica: refused there at once, here once FRESH_MS has passed', async () => {
    const { clock, replica, record } = setUp();
    const [a, b] = [replica(), replica()];
    await a.store.set('k', record(), TTL);
    expect(await b.store.get('k')).toBeDefined();
    await a.store.delete('k');
    expect(await a.store.get('k')).toBeUndefined();
    clock.advance(FRESH_MS);
    expect(await b.store.get('k')).toBeUndefined();
  });

  it('a deletion the store cannot take still refuses the session on this replica', async () => {
    const { replica, record } = setUp();
    const a = replica();
    await a.store.set('k', record(), TTL);
    a.flaky.failure = unavailable();
    await expect(a.store.delete('k')).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(a.store.get('k')).rejects.toBeInstanceOf(StoreUnavailableError);
  });

  it('a read under way while the session is deleted here keeps nothing', async () => {
    const { clock, shared, record } = setUp();
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow: SessionStore = {
      // Reads the row, then waits for the test before answering.
      get: async (key) => {
        const found = await shared.get(key);
        await gate;
        return found;
      },
      set: (k, r, t) => shared.set(k, r, t),
      refresh: (k, r, t) => shared.refresh(k, r, t),
      delete: (k) => shared.delete(k),
    };
    const a = new CachedSessionStore(slow, clock);
    await shared.set('k', record(), TTL);
    const reading = a.get('k');
    await a.delete('k');
    release();
    expect(await reading).toBeDefined();
    expect(await a.get('k')).toBeUndefined();
  });

  it('store unavailable: the last good read stands in for up to STALE_MS past it, never longer', async () => {
    const { clock, replica, record } = setUp();
    const a = replica();
    await a.store.set('k', record(), TTL);
    const readAt = clock.now();
    a.flaky.failure = unavailable();
    clock.advance(FRESH_MS);
    expect(await a.store.get('k')).toMatchObject({ email: 'ada@example.test' });
    clock.set(readAt + STALE_MS);
    expect(await a.store.get('k')).toMatchObject({ email: 'ada@example.test' });
    clock.advance(1);
    await expect(a.store.get('k')).rejects.toBeInstanceOf(StoreUnavailableError);
    // Back: read afresh and used again.
    a.flaky.failure = undefined;
    expect(await a.store.get('k')).toMatchObject({ email: 'ada@example.test' });
  });

  it('a session never read on this replica is a 503 while the store is unavailable', async () => {
    const { clock, replica, record } = setUp();
    const [a, b] = [replica(), replica()];
    await a.store.set('k', record(), TTL);
    clock.advance(1);
    b.flaky.failure = unavailable();
    await expect(b.store.get('k')).rejects.toBeInstanceOf(StoreUnavailableError);
  });

  it('any other failure of the store fails the read, a kept session or not', async () => {
    const { clock, replica, record } = setUp();
    const a = replica();
    await a.store.set('k', record(), TTL);
    clock.advance(FRESH_MS);
    a.flaky.failure = new Error('a statement at fault');
    await expect(a.store.get('k')).rejects.toThrow('a statement at fault');
  });

  it('after a failure, kept sessions answer without asking the store for RETRY_AFTER_FAILURE_MS', async () => {
    const { clock, replica, record } = setUp();
    const a = replica();
    await a.store.set('k', record(), TTL);
    clock.advance(FRESH_MS);
    a.flaky.failure = unavailable();
    await a.store.get('k');
    expect(a.flaky.reads).toBe(1);
    clock.advance(RETRY_AFTER_FAILURE_MS - 1);
    await a.store.get('k');
    expect(a.flaky.reads).toBe(1);
    clock.advance(1);
    await a.store.get('k');
    expect(a.flaky.reads).toBe(2);
  });

  it('a refresh the store cannot take is still seen here, and fails only itself', async () => {
    const { clock, replica, record } = setUp();
    const a = replica();
    const r = record();
    await a.store.set('k', r, TTL);
    a.flaky.failure = unavailable();
    clock.advance(1_000);
    await expect(
      a.store.refresh('k', { ...r, lastSeenAt: clock.now() }, TTL),
    ).rejects.toBeInstanceOf(StoreUnavailableError);
    expect((await a.store.get('k'))?.lastSeenAt).toBe(clock.now());
  });

  it('what a caller changes in a session it got is not what the next caller gets', async () => {
    const { replica, record } = setUp();
    const a = replica();
    const r = record();
    await a.store.set('k', r, TTL);
    r.role = 'admin';
    const got = await a.store.get('k');
    if (got) got.lastSeenAt = 0;
    expect(await a.store.get('k')).toMatchObject({ role: 'finance', lastSeenAt: r.createdAt });
  });
});

describe('OutageReadCache', () => {
  it('keeps at most `max` values, the least recently used going first', async () => {
    const clock = new ManualClock();
    const cache = new OutageReadCache<number>(clock, { max: 2 });
    let loads = 0;
    const load = (n: number) => async () => {
      loads++;
      return n;
    };
    await cache.read('a', load(1));
    await cache.read('b', load(2));
    await cache.read('a', load(1));
    await cache.read('c', load(3));
    expect(cache.size).toBe(2);
    expect(loads).toBe(3);
    await cache.read('a', load(1));
    expect(loads).toBe(3);
    await cache.read('b', load(2));
    expect(loads).toBe(4);
  });

  it('keeps "none" only when told to', async () => {
    const clock = new ManualClock();
    for (const keepMisses of [false, true]) {
      const cache = new OutageReadCache<number>(clock, { keepMisses });
      let loads = 0;
      const none = async () => {
        loads++;
        return undefined;
      };
      await cache.read('x', none);
      await cache.read('x', none);
      expect(loads).toBe(keepMisses ? 1 : 2);
    }
  });

  it('forgets the keys a test names, and only those', async () => {
    const clock = new ManualClock();
    const cache = new OutageReadCache<string>(clock);
    await cache.read('ada\n1', async () => 'ada');
    await cache.read('bob\n1', async () => 'bob');
    cache.forget((key) => key.startsWith('ada\n'));
    let loads = 0;
    const count = (v: string) => async () => {
      loads++;
      return v;
    };
    await cache.read('ada\n1', count('ada'));
    await cache.read('bob\n1', count('bob'));
    expect(loads).toBe(1);
    cache.forget();
    expect(cache.size).toBe(0);
  });
});
