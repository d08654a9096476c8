import type { Clock } from '../../core/clock';

/**
 * Values good for one use (WebAuthn challenges, pending OpenID Connect sign-ins): whichever
 * replica takes a value first gets it, and nobody gets it again. Each kind of value has a store
 * of its own with its own bound, so a flood of one kind (anonymous sign-in starts) can never
 * evict the other (a person's passkey challenge).
 */
export interface OneTimeStore {
  /** Keeps `value` under `key` for `ttlMs` (a later put replaces it). */
  put(key: string, value: string, ttlMs: number): Promise<void>;
  /** The value, deleted in the same step: of callers racing for one key, exactly one gets it. Undefined when absent or expired. */
  take(key: string): Promise<string | undefined>;
}

/**
 * How many live values each kind may hold; past that the oldest is dropped. A pending sign-in
 * is about 1 kB (its returnTo is at most 512 characters), a challenge about 200 bytes.
 */
export const ONE_TIME_LIMITS = { challenges: 50_000, ssoPending: 20_000 } as const;
export type OneTimeKind = keyof typeof ONE_TIME_LIMITS;

/** In-process store: right for one BFF instance; several replicas need the SQL one (sql-one-time-store.ts). */
export class MemoryOneTimeStore implements OneTimeStore {
  private readonly entries = new Map<string, { value: string; expiresAt: number }>();
  private puts = 0;

  constructor(
    private readonly clock: Pick<Clock, 'now'>,
    private readonly limit: number = ONE_TIME_LIMITS.challenges,
  ) {}

  async put(key: string, value: string, ttlMs: number): Promise<void> {
    // Deleted first so a replaced key moves to the end: the Map's order is the eviction order.
    this.entries.delete(key);
    if (++this.puts % 1000 === 0 || this.entries.size >= this.limit) this.sweep();
    while (this.entries.size >= this.limit) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.entries.delete(oldest.value);
    }
    this.entries.set(key, { value, expiresAt: this.clock.now() + ttlMs });
  }

  async take(key: string): Promise<string | undefined> {
    const entry = this.entries.get(key);
    this.entries.delete(key);
    if (!entry || entry.expiresAt <= this.clock.now()) return undefined;
    return entry.value;
  }

  get size(): number {
    return this.entries.size;
  }

  private sweep(): void {
    const now = this.clock.now();
    for (const [key, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(key);
  }
}
