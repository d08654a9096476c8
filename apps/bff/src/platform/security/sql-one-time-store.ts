import { createHash } from 'node:crypto';
import type { SqlEngine } from '../sql/sql-engine';
import { ONE_TIME_LIMITS, type OneTimeKind, type OneTimeStore } from './one-time-store';

export interface SqlOneTimeStoreOptions {
  kind: OneTimeKind;
  /** Live values of this kind at most; ONE_TIME_LIMITS[kind] by default. */
  limit?: number;
}

// A put drops the kind's expired values, then, while the kind is at its bound, the
// soonest-expiring live ones (its own key aside), and writes: one statement, after the kind's
// advisory lock, so replicas putting at once cannot pass the bound together. So a kind never
// holds more rows than its bound, expired or not, and a flood of one kind never touches another.
const PUT = `
WITH evicted AS (
  SELECT key_hash FROM one_time_value
  WHERE kind = $1 AND key_hash <> $2 AND expires_at > now()
  ORDER BY expires_at DESC, key_hash DESC
  OFFSET $5::int - 1
), dropped AS (
  DELETE FROM one_time_value
  WHERE kind = $1 AND key_hash <> $2
    AND (expires_at <= now() OR key_hash IN (SELECT key_hash FROM evicted))
)
INSERT INTO one_time_value (kind, key_hash, value, expires_at)
VALUES ($1, $2, $3, now() + $4::bigint * interval '1 millisecond')
ON CONFLICT (kind, key_hash) DO UPDATE
  SET value = excluded.value, expires_at = excluded.expires_at`;

/**
 * One-time values shared by every replica (table `one_time_value`), each named by the SHA-256
 * of its key. A take deletes and returns the row in one statement: of callers racing for a key,
 * one deletes it and the others find nothing. Expiry is on the database's clock.
 */
export class SqlOneTimeStore implements OneTimeStore {
  private readonly kind: OneTimeKind;
  private readonly limit: number;

  constructor(
    private readonly engine: SqlEngine,
    options: SqlOneTimeStoreOptions,
  ) {
    this.kind = options.kind;
    this.limit = options.limit ?? ONE_TIME_LIMITS[options.kind];
    if (!Number.isInteger(this.limit) || this.limit < 1) {
      throw new RangeError(`a one-time store holds at least one value, not ${this.limit}`);
    }
  }

  async put(key: string, value: string, ttlMs: number): Promise<void> {
    // A whole number of milliseconds, at least 1 (as Redis's PX took it).
    const ttl = Math.max(1, Math.ceil(ttlMs));
    await this.engine.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
        `card-console:one-time:${this.kind}`,
      ]);
      await tx.query(PUT, [this.kind, keyHash(key), value, ttl, this.limit]);
    });
  }

  async take(key: string): Promise<string | undefined> {
    const [row] = await this.engine.query<{ value: string; live: boolean }>(
      `DELETE FROM one_time_value WHERE kind = $1 AND key_hash = $2
       RETURNING value, expires_at > now() AS live`,
      [this.kind, keyHash(key)],
    );
    return row?.live ? row.value : undefined;
  }
}

/** The row's name for a key: any string of any length fits, and is never stored. */
function keyHash(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}
