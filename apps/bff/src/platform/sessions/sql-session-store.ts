import { createHash } from 'node:crypto';
import { roleSchema } from '@card-console/shared/api/meta';
import { signInMethodSchema } from '@card-console/shared/api/session';
import { z } from 'zod';
import type { SqlQueryable } from '../sql/sql-engine';
import type { SessionRecord, SessionStore } from './session-store';

export const sessionRecordSchema = z.object({
  email: z.string(),
  role: roleSchema,
  createdAt: z.number(),
  lastSeenAt: z.number(),
  stepUpAt: z.number().optional(),
  method: signInMethodSchema.optional(),
  sso: z
    .object({ sub: z.string(), idToken: z.string(), linked: z.boolean().optional() })
    .optional(),
  personVersion: z.number().int().optional(),
  ref: z.string().optional(),
  retiredUntil: z.number().optional(),
  retiredKey: z.string().optional(),
});

/**
 * Expired rows one write deletes: a write adds one row at most, so they cannot pile up, and no
 * write waits on a long delete (rows another write is deleting are skipped). Its own row is left
 * to the upsert: one statement never both deletes and updates a row.
 */
export const SESSION_SWEEP_BATCH = 20;

const EXPIRES = `now() + $3::bigint * interval '1 millisecond'`;

/**
 * Sessions shared by every replica, one row each (table `session_record`). The idle and absolute
 * expiry the session service works out become the row's `expires_at` on the database's clock; a
 * row past it is no session. The key is already a keyed hash of the cookie id
 * (session-service.ts); the row is named by its SHA-256.
 */
export class SqlSessionStore implements SessionStore {
  constructor(private readonly engine: SqlQueryable) {}

  async get(key: string): Promise<SessionRecord | undefined> {
    const [row] = await this.engine.query<{ record: unknown }>(
      'SELECT record FROM session_record WHERE key_hash = $1 AND expires_at > now()',
      [keyHash(key)],
    );
    if (!row) return undefined;
    // Something this version cannot read is no session, never a crash.
    const parsed = sessionRecordSchema.safeParse(row.record);
    return parsed.success ? parsed.data : undefined;
  }

  async set(key: string, record: SessionRecord, ttlMs: number): Promise<void> {
    await this.engine.query(
      `WITH swept AS (
         DELETE FROM session_record WHERE key_hash IN (
           SELECT key_hash FROM session_record
           WHERE expires_at <= now() AND key_hash <> $1
           ORDER BY expires_at LIMIT ${SESSION_SWEEP_BATCH} FOR UPDATE SKIP LOCKED))
       INSERT INTO session_record (key_hash, record, expires_at)
       VALUES ($1, $2::text::jsonb, ${EXPIRES})
       ON CONFLICT (key_hash) DO UPDATE
         SET record = excluded.record, expires_at = excluded.expires_at`,
      [keyHash(key), JSON.stringify(record), ttlOf(ttlMs)],
    );
  }

  async refresh(key: string, record: SessionRecord, ttlMs: number): Promise<void> {
    // Only a live row: a request that read the session before a sign-out elsewhere must not
    // bring it back when it records activity.
    await this.engine.query(
      `UPDATE session_record SET record = $2::text::jsonb, expires_at = ${EXPIRES}
       WHERE key_hash = $1 AND expires_at > now()`,
      [keyHash(key), JSON.stringify(record), ttlOf(ttlMs)],
    );
  }

  async delete(key: string): Promise<void> {
    await this.engine.query('DELETE FROM session_record WHERE key_hash = $1', [keyHash(key)]);
  }
}

/** The row's name for a store key: any string of any length fits, and is never stored. */
function keyHash(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** A whole number of milliseconds, at least 1 (as Redis's PX took it). */
function ttlOf(ttlMs: number): number {
  return Math.max(1, Math.ceil(ttlMs));
}
