/// <reference path="../../../types/rate-limiter-flexible-modules.d.ts" />
import type { Logger } from 'pino';
import type { RateLimiterStoreAbstract as StoreType } from 'rate-limiter-flexible';
import StoreModule from 'rate-limiter-flexible/lib/RateLimiterStoreAbstract.js';
import type { SqlEngine } from '../sql/sql-engine';
import { StoreUnavailableError } from '../store-unavailable';
import { RateLimiterMemory, RateLimiterRes } from './rate-limiter-classes';
import type { RateLimiterFactory } from './rate-limits';

type StoreOptions = ConstructorParameters<typeof StoreType>[0];
type Settle = (value: unknown) => void;

/** What the library's store base class offers its stores beyond its public type. */
interface StoreInternals {
  _consume(key: string | number, points?: number, options?: object): Promise<RateLimiterRes>;
  _reward(key: string | number, points?: number, options?: object): Promise<RateLimiterRes>;
  _handleError(
    error: unknown,
    operation: string,
    resolve: Settle,
    reject: Settle,
    params: unknown[],
  ): void;
  getInMemoryBlockMsBeforeExpire(rlKey: string): number;
  /** The keys this replica refuses without asking the store, to when. */
  _inMemoryBlockedKeys: { delete(rlKey: string): void };
  getKey(key: string | number): string;
}

// Loaded on its own, as rate-limiter-classes.ts loads the memory limiter (the package's index
// loads every store it supports); it requires the same RateLimiterRes module.
const RateLimiterStoreAbstract = StoreModule as new (
  options: StoreOptions,
) => StoreType & StoreInternals;

/** A counter as the statements return it: its points and the time left in its window. */
interface CounterRow {
  points: number;
  /** Null for a counter whose window never ends (duration 0). */
  ms_left: number | null;
}

// One statement per change: the counter is created, added to, or restarted once its window
// ended (or when set or blocked: `force`), by the database's clock. clock_timestamp(), not
// now(): a statement that waited for another's row lock would count from before its wait, and
// tell a window longer than the limiter's.
const upsert = `
INSERT INTO rate_limit_counter AS c (key, points, expires_at)
VALUES ($1, $2, CASE WHEN $3::float8 > 0 THEN clock_timestamp() + $3::float8 * interval '1 millisecond' END)
ON CONFLICT (key) DO UPDATE SET
  points = CASE WHEN $4::boolean OR c.expires_at <= clock_timestamp() THEN excluded.points
                ELSE c.points + excluded.points END,
  expires_at = CASE WHEN $4::boolean OR c.expires_at <= clock_timestamp() THEN excluded.expires_at
                    ELSE c.expires_at END
RETURNING points, greatest(0, extract(epoch FROM expires_at - clock_timestamp()) * 1000)::float8 AS ms_left`;

const live = '(expires_at IS NULL OR expires_at > clock_timestamp())';

interface Shared {
  engine: SqlEngine;
  logger: Logger | undefined;
  sweepEveryMs: number;
  sweepBatch: number;
  lastSweep: number;
  /** Set while the store fails and the local limits stand in; logged once each way. */
  degraded: boolean;
  /** While degraded: when to ask the database again. */
  retryAt: number;
  retryAfterFailureMs: number;
}

/**
 * rate-limiter-flexible's store over SqlEngine (its own RateLimiterPostgres creates its table
 * at run time and counts windows by each replica's clock). In front, the library's in-memory
 * block: once a key is refused, this replica refuses it without asking the database until its
 * window ends. Behind, its insurance limiter: while the database is unavailable each replica
 * counts on its own (RateLimiterMemory, the same points and window), so requests keep their
 * limits instead of all failing; a refusal is a RateLimiterRes (429) either way.
 */
class SqlRateLimiter extends RateLimiterStoreAbstract {
  /**
   * Points refused by the in-memory block, which took nothing from the database, until their
   * window ends. An attempt reservation gives back the point of a refused attempt
   * (attempt-reservation.ts): given back to the database, it would credit a point no one took.
   */
  private readonly unstored = new Map<string, { points: number; until: number }>();

  constructor(
    private readonly shared: Shared,
    options: StoreOptions,
  ) {
    super(options);
  }

  override _consume(key: string | number, points = 1, options = {}) {
    const rlKey = this.getKey(key);
    const blockedMs = this.getInMemoryBlockMsBeforeExpire(rlKey);
    if (blockedMs > 0) {
      const held = this.unstoredFor(rlKey);
      this.unstored.set(rlKey, {
        points: (held?.points ?? 0) + points,
        until: Date.now() + blockedMs,
      });
    }
    return super._consume(key, points, options);
  }

  override _reward(key: string | number, points = 1, options = {}) {
    const rlKey = this.getKey(key);
    const held = this.unstoredFor(rlKey);
    if (held && held.points >= points) {
      held.points -= points;
      if (held.points === 0) this.unstored.delete(rlKey);
      return Promise.resolve(new RateLimiterRes(this.points, held.until - Date.now(), 0, false));
    }
    // A point the database holds goes back there, and the count may now be under the limit:
    // this replica asks the database again (the other replicas' blocks end with the window).
    this._inMemoryBlockedKeys.delete(rlKey);
    return super._reward(key, points, options);
  }

  private unstoredFor(rlKey: string) {
    const held = this.unstored.get(rlKey);
    if (held && held.until > Date.now()) return held;
    this.unstored.delete(rlKey);
    if (this.unstored.size > 999) {
      const now = Date.now();
      for (const [k, v] of this.unstored) if (v.until <= now) this.unstored.delete(k);
    }
    return undefined;
  }

  // Only the store being unavailable falls back to the local limits; a statement at fault
  // (a bug, a missing privilege) fails as it is.
  override _handleError(
    error: unknown,
    operation: string,
    resolve: Settle,
    reject: Settle,
    params: unknown[],
  ) {
    if (error instanceof StoreUnavailableError || error instanceof RateLimiterRes) {
      super._handleError(error, operation, resolve, reject, params);
    } else reject(error);
  }

  /**
   * A statement to the database, unless it failed a moment ago: then the local limits answer
   * at once for `retryAfterFailureMs`, rather than each request waiting for a connection to
   * time out (seconds, when the network rather than the server is down).
   */
  private async query(text: string, params: unknown[]): Promise<CounterRow[]> {
    const shared = this.shared;
    if (shared.degraded && Date.now() < shared.retryAt) {
      throw new StoreUnavailableError('postgres', `rate limit (${this.keyPrefix})`);
    }
    try {
      const rows = await shared.engine.query<CounterRow>(text, params);
      if (shared.degraded) {
        shared.degraded = false;
        shared.logger?.info('rate limits shared through PostgreSQL again');
      }
      return rows;
    } catch (error) {
      if (error instanceof StoreUnavailableError) {
        shared.retryAt = Date.now() + shared.retryAfterFailureMs;
        if (!shared.degraded) {
          shared.degraded = true;
          shared.logger?.warn(
            { err: error, limiter: this.keyPrefix },
            'rate limits counted by each replica alone until PostgreSQL answers again',
          );
        }
      }
      throw error;
    }
  }

  async _upsert(rlKey: string, points: number, msDuration: number, force = false) {
    this.sweep();
    const [row] = await this.query(upsert, [rlKey, points, msDuration, force]);
    return row as CounterRow;
  }

  async _get(rlKey: string) {
    const [row] = await this.query(
      `SELECT points, greatest(0, extract(epoch FROM expires_at - clock_timestamp()) * 1000)::float8 AS ms_left
         FROM rate_limit_counter WHERE key = $1 AND ${live}`,
      [rlKey],
    );
    return row ?? null;
  }

  async _delete(rlKey: string) {
    const rows = await this.query(
      `DELETE FROM rate_limit_counter WHERE key = $1 AND ${live} RETURNING points, NULL AS ms_left`,
      [rlKey],
    );
    return rows.length > 0;
  }

  _getRateLimiterRes(_rlKey: string, changedPoints: number, row: CounterRow) {
    const consumed = row.points;
    return new RateLimiterRes(
      Math.max(this.points - consumed, 0),
      row.ms_left === null ? -1 : Math.ceil(row.ms_left),
      consumed,
      consumed === changedPoints,
    );
  }

  /**
   * Deletes a bounded batch of lapsed counters on the way to a write, once a sweep interval;
   * after a full batch, again at the next write, so counters lapsing faster than a batch an
   * interval (many addresses trying to sign in) do not pile up.
   */
  private sweep() {
    const shared = this.shared;
    const now = Date.now();
    if (shared.degraded || now - shared.lastSweep < shared.sweepEveryMs) return;
    shared.lastSweep = now;
    // Not the request's business: a sweep that fails is tried again an interval later.
    shared.engine
      .query<{ swept: number }>(
        `WITH swept AS (
           DELETE FROM rate_limit_counter WHERE key IN (
             SELECT key FROM rate_limit_counter WHERE expires_at <= clock_timestamp()
              LIMIT $1 FOR UPDATE SKIP LOCKED)
           RETURNING 1)
         SELECT count(*)::int AS swept FROM swept`,
        [shared.sweepBatch],
      )
      .then(([row]) => {
        if (row?.swept === shared.sweepBatch) shared.lastSweep = 0;
      })
      .catch(() => {});
  }
}

/**
 * A limit every signed-in request spends (`prepaid`, the API's): the replica takes points from
 * the database a chunk at a time (a 20th of the limit) and spends them in memory, so a request
 * writes to PostgreSQL once a chunk instead of each time. No more than the limit is let through
 * across replicas: a chunk the counter cannot hold whole is let through only as far as it fits.
 * The cost: points one replica holds unspent count as spent for the others (less than a chunk
 * per replica and key), and lapse with their window.
 */
class PrepaidSqlRateLimiter extends SqlRateLimiter {
  private readonly prepaid = new Map<string, { left: number; until: number }>();
  /** A chunk being taken, per key: requests meanwhile wait for it rather than take their own. */
  private readonly taking = new Map<string, Promise<void>>();
  private readonly chunk: number;

  constructor(shared: Shared, options: StoreOptions & { points: number }) {
    super(shared, options);
    this.chunk = Math.max(1, Math.floor(options.points / 20));
  }

  override async consume(key: string | number, points = 1, options = {}): Promise<RateLimiterRes> {
    const id = String(key);
    for (;;) {
      const now = Date.now();
      const held = this.prepaid.get(id);
      if (held && held.until > now && held.left >= points) {
        held.left -= points;
        return new RateLimiterRes(held.left, held.until - now, this.points - held.left, false);
      }
      const taking = this.taking.get(id);
      if (!taking) break;
      await taking;
    }
    const took = this.take(key, id, points, options);
    const settled = took.then(
      () => {},
      () => {},
    );
    this.taking.set(id, settled);
    try {
      return await took;
    } finally {
      if (this.taking.get(id) === settled) this.taking.delete(id);
    }
  }

  /** Takes a chunk from the database (or, while it fails, the local limits) for `points` now. */
  private async take(key: string | number, id: string, points: number, options: object) {
    const now = Date.now();
    const held = this.prepaid.get(id);
    const residue = held && held.until > now ? held.left : 0;
    this.prepaid.delete(id);
    if (this.prepaid.size > 9_999) {
      for (const [k, v] of this.prepaid) if (v.until <= now) this.prepaid.delete(k);
    }
    const take = Math.max(points, this.chunk);
    let res: RateLimiterRes;
    let fits = take;
    try {
      res = await super.consume(key, take, options);
    } catch (refused) {
      // The counter went past the limit with this chunk (not a refusal from the in-memory
      // block, which counted nothing): what of the chunk still fitted is let through.
      if (
        !(refused instanceof RateLimiterRes) ||
        take === points ||
        refused.consumedPoints <= this.points
      ) {
        throw refused;
      }
      fits = this.points - (refused.consumedPoints - take);
      if (fits < points) throw refused;
      res = new RateLimiterRes(fits - points, refused.msBeforeNext, this.points, false);
    }
    this.prepaid.set(id, { left: residue + fits - points, until: now + res.msBeforeNext });
    return res;
  }
}

export interface SqlRateLimitersOptions {
  /** Told when the limits fall back to each replica's own count, and when they are shared again. */
  logger?: Logger;
  /** How often a replica deletes lapsed counters, a batch at a time. */
  sweepEveryMs?: number;
  sweepBatch?: number;
  /** How long after a failure the local limits answer without asking the database. */
  retryAfterFailureMs?: number;
}

/**
 * Counters every replica shares, in PostgreSQL (`rate_limit_counter`, keyed `<limiter>:<key>`):
 * each change is one atomic upsert, so an attempt reservation holds across replicas and many
 * attempts at once never get more than the points. Windows are kept by the database's clock.
 */
export function sqlRateLimiters(
  engine: SqlEngine,
  options: SqlRateLimitersOptions = {},
): RateLimiterFactory {
  const shared: Shared = {
    engine,
    logger: options.logger,
    sweepEveryMs: options.sweepEveryMs ?? 60_000,
    sweepBatch: options.sweepBatch ?? 500,
    lastSweep: 0,
    degraded: false,
    retryAt: 0,
    retryAfterFailureMs: options.retryAfterFailureMs ?? 1_000,
  };
  return (limit) =>
    new (limit.prepaid ? PrepaidSqlRateLimiter : SqlRateLimiter)(shared, {
      storeClient: engine,
      keyPrefix: limit.keyPrefix,
      points: limit.points,
      duration: limit.duration,
      // The first refusal blocks the key on this replica until its window ends.
      inMemoryBlockOnConsumed: limit.points + 1,
      insuranceLimiter: new RateLimiterMemory({
        keyPrefix: limit.keyPrefix,
        points: limit.points,
        duration: limit.duration,
      }),
    });
}
