import type { Clock } from '../../core/clock';
import { OutageReadCache, type OutageReadCacheOptions } from './outage-read-cache';
import type { SessionRecord, SessionStore } from './session-store';

const copy = (record: SessionRecord): SessionRecord => ({ ...record });

/**
 * A shared session store read through a short cache (outage-read-cache.ts): a session read on
 * this replica is used for up to FRESH_MS without asking the store again, and while the store
 * is unavailable for up to STALE_MS past its last good read. A sign-out or an ended session is
 * refused at once on the replica that ended it and within FRESH_MS on the others. Writes go
 * to the store as before: one that fails fails its request.
 */
export class CachedSessionStore implements SessionStore {
  private readonly cache: OutageReadCache<SessionRecord>;

  constructor(
    private readonly inner: SessionStore,
    clock: Clock,
    options: Omit<OutageReadCacheOptions, 'keepMisses'> = {},
  ) {
    // No misses kept: anyone can send a cookie, and the cache must not fill with made-up ones.
    this.cache = new OutageReadCache(clock, { ...options, keepMisses: false });
  }

  async get(key: string): Promise<SessionRecord | undefined> {
    const record = await this.cache.read(key, () => this.inner.get(key));
    // Callers change what they get (its activity): never the kept record itself.
    return record && copy(record);
  }

  async set(key: string, record: SessionRecord, ttlMs: number): Promise<void> {
    await this.inner.set(key, record, ttlMs);
    this.cache.remember(key, copy(record));
  }

  async refresh(key: string, record: SessionRecord, ttlMs: number): Promise<void> {
    // Kept first, so reads here see the activity even when the store cannot take it now (the
    // next write-back, a granularity later, tries again).
    this.cache.replace(key, copy(record));
    await this.inner.refresh(key, record, ttlMs);
  }

  async delete(key: string): Promise<void> {
    // Before, so this replica refuses it even if the store cannot be told; after, so a read
    // that began meanwhile keeps nothing.
    this.cache.forget(key);
    try {
      await this.inner.delete(key);
    } finally {
      this.cache.forget(key);
    }
  }
}
