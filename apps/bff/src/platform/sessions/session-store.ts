import type { Role } from '@card-console/shared/api/meta';
import type { SignInMethod } from '@card-console/shared/api/session';
import type { Clock } from '../../core/clock';

/** What the server keeps about a signed-in person. The cookie holds only a random id. */
export interface SessionRecord {
  email: string;
  role: Role;
  /** Unix ms of sign-in: the absolute lifetime counts from here. */
  createdAt: number;
  /** Unix ms of the last call that counts as activity (background polls do not). */
  lastSeenAt: number;
  /** Unix ms of the last passed second-factor check (admin sign-in or step-up). */
  stepUpAt?: number;
  /** How the person signed in; absent on sessions stored before single sign-on existed. */
  method?: SignInMethod;
  /**
   * Single sign-on: the provider's subject, the ID token (the hint for signing out there), and
   * whether the subject is linked to a person of the users file (who then vouches for it).
   */
  sso?: { sub: string; idToken: string; linked?: boolean };
  /**
   * The person's version in the people store when the session started: a change of the person
   * (role, disabling, credentials) ends it. Absent on sessions judged by the users file alone.
   */
  personVersion?: number;
  /**
   * A random reference that names the session to admins (the People screen's "end session"):
   * not secret, not the store key, kept through the id's rotation at step-up.
   */
  ref?: string;
  /**
   * Unix ms until which the id this record is stored under still works, on the record an id
   * leaves behind when a step-up rotates it (`SessionService.recordStepUp`): a request the
   * browser sent before it had the new cookie is not refused as signed out. It keeps what the id
   * had before the step-up, never the step-up itself, and nothing steps up from it.
   */
  retiredUntil?: number;
  /**
   * On the record a step-up issued: the store key of the id it replaced (good until that
   * record's `retiredUntil`), ended with this session at sign-out.
   */
  retiredKey?: string;
}

/**
 * Server-side session storage, keyed by an HMAC of the cookie id (never the id itself).
 * Async so a shared implementation (PostgreSQL's, sql-session-store.ts) drops in unchanged;
 * `ttlMs` is only for garbage collection: expiry is decided by the session service with
 * the injected clock, so a store that keeps a record longer is still safe.
 */
export interface SessionStore {
  get(key: string): Promise<SessionRecord | undefined>;
  set(key: string, record: SessionRecord, ttlMs: number): Promise<void>;
  /**
   * Like `set`, but only while the key still exists (an UPDATE, never an insert): a request that read
   * the session before a sign-out elsewhere must not bring it back when it records activity.
   */
  refresh(key: string, record: SessionRecord, ttlMs: number): Promise<void>;
  delete(key: string): Promise<void>;
}

/** In-process store: right for one BFF instance; use a shared store for several replicas. */
export class MemorySessionStore implements SessionStore {
  private readonly entries = new Map<string, { record: SessionRecord; expiresAt: number }>();
  private writes = 0;

  constructor(private readonly clock: Clock) {}

  async get(key: string): Promise<SessionRecord | undefined> {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.clock.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return { ...entry.record };
  }

  async set(key: string, record: SessionRecord, ttlMs: number): Promise<void> {
    this.entries.set(key, { record: { ...record }, expiresAt: this.clock.now() + ttlMs });
    if (++this.writes % 1000 === 0) this.sweep();
  }

  async refresh(key: string, record: SessionRecord, ttlMs: number): Promise<void> {
    const entry = this.entries.get(key);
    if (!entry || entry.expiresAt <= this.clock.now()) return;
    this.entries.set(key, { record: { ...record }, expiresAt: this.clock.now() + ttlMs });
  }

  async delete(key: string): Promise<void> {
    this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }

  private sweep(): void {
    const now = this.clock.now();
    for (const [key, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(key);
  }
}
