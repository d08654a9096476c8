// A small session layer over SessionStore rather than express-session: we need the id to
// rotate at sign-in with the old id dead at once and at step-up with the old id good for a few
// seconds more and no more than it was (ROTATED_ID_GRACE_MS), expiry decided by an injected
// clock (idle 15 min, absolute 12 h), and a background poll that reads without extending.
// express-session's own clock, touch and regenerate semantics would have to be fought.
import { hash, randomBytes } from 'node:crypto';
import type { SignInMethod } from '@card-console/shared/api/session';
import type { Request, Response } from 'express';
import type { Clock } from '../../core/clock';
import type { Config } from '../../env';
import { StoreUnavailableError } from '../store-unavailable';
import {
  clearSessionCookie,
  readSessionId,
  SESSION_ID_LENGTH,
  writeSessionCookie,
} from './session-cookie';
import type { SessionRecord, SessionStore } from './session-store';
import type { Actor } from './who';

export interface ActiveSession {
  key: string;
  record: SessionRecord;
}

const active = new WeakMap<Request, ActiveSession>();

/** The session the current request carries, after `SessionService.load`. */
export function activeSession(req: Request): ActiveSession | undefined {
  return active.get(req);
}

/**
 * The store key of a cookie id: SHA-256 over the session secret followed by the id, so a
 * leaked store (or its keys in a database dump) gives no cookie that works, and no key can be
 * worked out without the secret. Every id is exactly 43 characters (256 random bits), and
 * with fixed-length input a secret-prefixed SHA-256 is a keyed hash as sound as an HMAC
 * (length extension needs a longer input, which is refused here). One native call instead
 * of an Hmac object's three: ~13 µs less CPU per signed-in request at one connection
 * (bench/analysis.md).
 */
export function sessionStoreKey(secret: string, id: string): string {
  if (id.length !== SESSION_ID_LENGTH) throw new Error('a session id has a fixed length');
  return hash('sha256', secret + id, 'base64url');
}

/** Whether the person a session belongs to may still use it (the users file or people store). */
export interface SessionAccounts {
  allowsSession(
    session: Pick<SessionRecord, 'email' | 'role' | 'method' | 'sso' | 'personVersion' | 'ref'>,
  ): boolean | Promise<boolean>;
}

/** How a person proved who they are, as admins see it beside each open session. */
export type SessionProof = 'password' | 'passkey' | 'sso';

/**
 * Where sessions are listed for admins (features/people): told when one starts, when activity
 * is written back (at most every `ACTIVITY_GRANULARITY_MS`) and when it ends here. A session an
 * admin ends there is refused by `SessionAccounts` at its next request.
 */
export interface SessionRegistry {
  started(session: {
    ref: string;
    email: string;
    method: SessionProof;
    at: number;
    personVersion?: number | undefined;
  }): Promise<void>;
  seen(ref: string, at: number): Promise<void>;
  ended(ref: string, at: number): Promise<void>;
}

/**
 * Activity is recorded at most this often per session: a read within it of the last recorded
 * one skips the write-back (a database round trip on every read otherwise). The idle timeout is
 * 15 minutes, so a session may end up to this much earlier than its last request plus 15 min.
 */
export const ACTIVITY_GRANULARITY_MS = 10_000;

/**
 * How long an id a step-up rotated away keeps working. The browser's reads sent before the
 * step-up's answer brought the new cookie (the card's transactions, the alerts, the session
 * poll) arrive with the old id; refused, they signed the person out mid-reveal. Within this
 * the old id is what it was before the step-up (never stepped up by it), cannot step up
 * itself, and ends with the session at sign-out (decision 0033).
 */
export const ROTATED_ID_GRACE_MS = 10_000;

/** Runs `write`; the store being unavailable (anything else is thrown) is let pass. */
async function bestEffort(write: () => Promise<void>): Promise<void> {
  try {
    await write();
  } catch (error) {
    if (!(error instanceof StoreUnavailableError)) throw error;
  }
}

export class SessionService {
  constructor(
    private readonly store: SessionStore,
    private readonly clock: Clock,
    private readonly config: Pick<Config, 'cookie' | 'session' | 'sessionSecret'>,
    /** Checked at every load: a removed, disabled or re-roled person's session ends there. */
    private readonly accounts?: SessionAccounts,
    /** Told of each session's start, activity and end, so admins can list and end them. */
    private readonly registry?: SessionRegistry,
  ) {}

  private keyFor(id: string): string {
    return sessionStoreKey(this.config.sessionSecret, id);
  }

  private ttl(record: SessionRecord): number {
    const now = this.clock.now();
    const idleEnd = record.lastSeenAt + this.config.session.idleMs;
    const absoluteEnd = record.createdAt + this.config.session.absoluteMs;
    const end = Math.min(idleEnd, absoluteEnd, record.retiredUntil ?? Number.POSITIVE_INFINITY);
    return Math.max(1, end - now);
  }

  isExpired(record: SessionRecord, now = this.clock.now()): boolean {
    return (
      now >= record.lastSeenAt + this.config.session.idleMs ||
      now >= record.createdAt + this.config.session.absoluteMs ||
      (record.retiredUntil !== undefined && now >= record.retiredUntil)
    );
  }

  /** Whether the record is an id a step-up rotated away (still good for reads, never a step-up). */
  isRetired(record: SessionRecord): boolean {
    return record.retiredUntil !== undefined;
  }

  /**
   * Reads the cookie and attaches the session to `req` (and `req.actor`). `extend` false is a
   * background poll: it may read the session but does not count as activity.
   */
  async load(req: Request, extend: boolean): Promise<ActiveSession | undefined> {
    const id = readSessionId(req, this.config.cookie.name);
    if (!id) return undefined;
    const key = this.keyFor(id);
    const record = await this.store.get(key);
    if (!record) return undefined;
    // The users file vouches for its people's sessions, single sign-on ones of linked people
    // included; an unlinked single sign-on session (its role from the provider at sign-in)
    // ends once the file holds its name.
    const expired = this.isExpired(record);
    const vouched = expired || !this.accounts || (await this.accounts.allowsSession(record));
    if (expired || !vouched) {
      // Refused either way: a store that cannot take the deletion now does not make it a 503.
      await bestEffort(async () => {
        await this.store.delete(key);
        if (record.ref) await this.registry?.ended(record.ref, this.clock.now());
      });
      return undefined;
    }
    const now = this.clock.now();
    if (extend && now - record.lastSeenAt >= ACTIVITY_GRANULARITY_MS) {
      record.lastSeenAt = now;
      // Activity that cannot be recorded during an outage fails no read: the idle limit is
      // minutes, and the next write-back after it records the activity.
      await bestEffort(async () => {
        await this.store.refresh(key, record, this.ttl(record));
        if (record.ref) await this.registry?.seen(record.ref, now);
      });
    }
    const session = { key, record };
    active.set(req, session);
    req.actor = { email: record.email, role: record.role };
    return session;
  }

  /**
   * Attaches the session stored under `key` to `req`, as `load` does from the cookie: for a
   * request that cannot carry the SameSite=Strict cookie (the provider's redirect back after
   * a step-up), where a server-side record names the session instead. Not activity.
   */
  async loadByKey(req: Request, key: string): Promise<ActiveSession | undefined> {
    const record = await this.store.get(key);
    // An id rotated away since (a step-up in another tab) is no session to step up.
    if (!record || this.isExpired(record) || this.isRetired(record)) return undefined;
    const session = { key, record };
    active.set(req, session);
    req.actor = { email: record.email, role: record.role };
    return session;
  }

  /** Signs a person in: any session the request carried ends, a fresh id is issued. */
  async start(
    req: Request,
    res: Response,
    actor: Actor,
    options: {
      steppedUp: boolean;
      method?: SignInMethod;
      sso?: SessionRecord['sso'];
      /** The person's version in the people store, which the session must keep matching. */
      personVersion?: number | undefined;
      /** What admins see as the way in; by default `method` ('password' or 'sso'). */
      proof?: SessionProof;
    },
  ): Promise<ActiveSession> {
    await this.forget(req);
    const now = this.clock.now();
    const record: SessionRecord = {
      ...actor,
      createdAt: now,
      lastSeenAt: now,
      method: options.method ?? 'password',
      // 128 random bits: names the session to admins; guessing one ends nobody's session.
      ref: randomBytes(16).toString('base64url'),
    };
    if (options.sso) record.sso = options.sso;
    if (options.steppedUp) record.stepUpAt = now;
    if (options.personVersion !== undefined) record.personVersion = options.personVersion;
    await this.registry?.started({
      ref: record.ref as string,
      email: record.email,
      method: options.proof ?? record.method ?? 'password',
      at: now,
      personVersion: options.personVersion,
    });
    return this.issue(req, res, record);
  }

  /**
   * Records a passed second-factor check and rotates the id. The old id works for
   * ROTATED_ID_GRACE_MS more as it was before (requests already on their way), then stops.
   * Retired first: if the new id cannot be stored, the old one still ends.
   */
  async recordStepUp(req: Request, res: Response): Promise<ActiveSession> {
    const current = active.get(req);
    if (!current) throw new Error('recordStepUp needs a loaded session');
    if (this.isRetired(current.record)) throw new Error('an id rotated away cannot step up');
    const now = this.clock.now();
    const { retiredKey: _older, ...before } = current.record;
    const retired: SessionRecord = { ...before, retiredUntil: now + ROTATED_ID_GRACE_MS };
    await this.store.set(current.key, retired, this.ttl(retired));
    return this.issue(req, res, {
      ...before,
      stepUpAt: now,
      lastSeenAt: now,
      retiredKey: current.key,
    });
  }

  /** Destroys the server-side session (if any) and clears the cookie. */
  async end(req: Request, res: Response): Promise<void> {
    await this.forget(req);
    clearSessionCookie(res, this.config.cookie);
  }

  private async forget(req: Request): Promise<void> {
    const current = active.get(req);
    const id = readSessionId(req, this.config.cookie.name);
    const key = current?.key ?? (id ? this.keyFor(id) : undefined);
    if (key !== undefined) {
      // Its record names what else ends with it: the session's reference (for the registry)
      // and the id a step-up replaced moments ago.
      const record = current?.record ?? (await this.store.get(key));
      await this.store.delete(key);
      if (record?.retiredKey) await this.store.delete(record.retiredKey);
      if (record?.ref) await this.registry?.ended(record.ref, this.clock.now());
    }
    active.delete(req);
    req.actor = undefined;
  }

  /** Unix ms until which no new second-factor code is needed, or undefined when lapsed. */
  stepUpUntil(record: SessionRecord): number | undefined {
    if (record.stepUpAt === undefined) return undefined;
    const until = record.stepUpAt + this.config.session.stepUpMs;
    return until > this.clock.now() ? until : undefined;
  }

  /** The session as GET /api/session shows it, but for `stepUpMethods` (the factors' to say). */
  describe(record: SessionRecord) {
    return {
      email: record.email,
      role: record.role,
      method: record.method ?? 'password',
      stepUpUntil: this.stepUpUntil(record),
      idleExpiresAt: record.lastSeenAt + this.config.session.idleMs,
      absoluteExpiresAt: record.createdAt + this.config.session.absoluteMs,
    };
  }

  private async issue(req: Request, res: Response, record: SessionRecord): Promise<ActiveSession> {
    const id = randomBytes(32).toString('base64url'); // 256 bits
    const key = this.keyFor(id);
    await this.store.set(key, record, this.ttl(record));
    writeSessionCookie(res, this.config.cookie, id);
    const session = { key, record };
    active.set(req, session);
    req.actor = { email: record.email, role: record.role };
    return session;
  }
}
