// What each signed-in request reads from PostgreSQL (its session, the person's standing), kept a
// few seconds on the replica that read it: most requests ask the database nothing, and a brief
// outage does not stop reads. Changes made on another replica reach this one within
// `freshMs`; the replica that makes one forgets its copy at once.
import { LRUCache } from 'lru-cache';
import type { Clock } from '../../core/clock';
import { StoreUnavailableError } from '../store-unavailable';

/** How long a value read is used without asking again: a change elsewhere is seen within it. */
export const FRESH_MS = 5_000;
/**
 * How long past its last good read a value is still used while the database is unavailable
 * (StoreUnavailableError), never otherwise: an outage longer than this answers 503.
 */
export const STALE_MS = 30_000;
/**
 * After the database was found unavailable, how long kept values are used without asking it
 * again: an unreachable server (rather than a refused connection) costs a connection timeout
 * a read, which one request a second pays instead of every one.
 */
export const RETRY_AFTER_FAILURE_MS = 1_000;
/** Values kept at most, the least recently used going first: memory stays bounded. */
export const MAX_ENTRIES = 10_000;

export interface OutageReadCacheOptions {
  freshMs?: number;
  staleMs?: number;
  retryAfterFailureMs?: number;
  max?: number;
  /** Also keep "there is none" (undefined); off where any caller could make up keys. */
  keepMisses?: boolean;
}

interface Entry<V> {
  value: V | undefined;
  readAt: number;
}

export class OutageReadCache<V> {
  private readonly entries: LRUCache<string, Entry<V>>;
  private readonly freshMs: number;
  private readonly staleMs: number;
  private readonly keepMisses: boolean;
  private readonly retryAfterFailureMs: number;
  /** When a load last failed as unavailable, until one succeeds. */
  private failedAt: number | undefined;
  /** Moves at each `forget`: a read that began before one does not keep what it read. */
  private generation = 0;

  constructor(
    private readonly clock: Clock,
    options: OutageReadCacheOptions = {},
  ) {
    this.freshMs = options.freshMs ?? FRESH_MS;
    this.staleMs = options.staleMs ?? STALE_MS;
    this.keepMisses = options.keepMisses ?? false;
    this.retryAfterFailureMs = options.retryAfterFailureMs ?? RETRY_AFTER_FAILURE_MS;
    this.entries = new LRUCache({ max: options.max ?? MAX_ENTRIES });
  }

  /** The value under `key`: kept if fresh, else `load`ed, else (database unavailable) kept if not too old. */
  async read(key: string, load: () => Promise<V | undefined>): Promise<V | undefined> {
    const entry = this.entries.get(key);
    const now = this.clock.now();
    if (entry && now - entry.readAt < this.freshMs) return entry.value;
    if (
      entry &&
      this.failedAt !== undefined &&
      now - this.failedAt < this.retryAfterFailureMs &&
      now - entry.readAt <= this.staleMs
    ) {
      return entry.value;
    }
    const generation = this.generation;
    const startedAt = this.clock.now();
    let value: V | undefined;
    try {
      value = await load();
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) throw error;
      this.failedAt = this.clock.now();
      const kept = this.entries.get(key);
      if (kept !== undefined && this.clock.now() - kept.readAt <= this.staleMs) {
        return kept.value;
      }
      throw error;
    }
    this.failedAt = undefined;
    if (generation === this.generation) {
      if (value === undefined && !this.keepMisses) this.entries.delete(key);
      else this.entries.set(key, { value, readAt: startedAt });
    }
    return value;
  }

  /** What this replica has just written under `key`: as good as a read. */
  remember(key: string, value: V): void {
    this.entries.set(key, { value, readAt: this.clock.now() });
  }

  /** Replaces the value kept under `key`, if any, without counting as a read. */
  replace(key: string, value: V): void {
    const entry = this.entries.get(key);
    if (entry) entry.value = value;
  }

  /** Forgets the keys `which` names (every key when not given), and any read under way. */
  forget(which?: string | ((key: string) => boolean)): void {
    this.generation++;
    if (which === undefined) this.entries.clear();
    else if (typeof which === 'string') this.entries.delete(which);
    else for (const key of [...this.entries.keys()]) if (which(key)) this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}
