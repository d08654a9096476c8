import { createHash } from 'node:crypto';
import type { SqlQueryable } from '../sql/sql-engine';
import type { UsedCodeLedger } from './totp';

/**
 * Long enough: a code is accepted only within one 30 s step of now, so a step claimed more
 * than a minute ago can never be offered again; five minutes leaves room for clock skew
 * between replicas. Past it the row counts as absent, as Redis's key expired.
 */
export const USED_CODE_REMEMBER_SECONDS = 300;

/**
 * Expired rows one claim deletes, so they cannot pile up (a claim adds one row at most). Its own
 * row is left to the upsert: one statement never both deletes and updates a row.
 */
export const USED_CODE_SWEEP_BATCH = 20;

// Compare-and-set in one statement: the stored step only moves forward. Of claims of one step
// racing on several replicas, the first to write wins; the others wait on its row, see the step
// already there and return no row.
const CLAIM = `
WITH swept AS (
  DELETE FROM used_totp_step WHERE email_hash IN (
    SELECT email_hash FROM used_totp_step
    WHERE expires_at <= now() AND email_hash <> $1
    ORDER BY expires_at LIMIT ${USED_CODE_SWEEP_BATCH} FOR UPDATE SKIP LOCKED))
INSERT INTO used_totp_step (email_hash, time_step, expires_at)
VALUES ($1, $2::bigint, now() + $3::int * interval '1 second')
ON CONFLICT (email_hash) DO UPDATE
  SET time_step = excluded.time_step, expires_at = excluded.expires_at
  WHERE used_totp_step.time_step < excluded.time_step OR used_totp_step.expires_at <= now()
RETURNING 1 AS claimed`;

/**
 * Which TOTP step each person last used, shared by every replica (table `used_totp_step`, one
 * row per person named by the SHA-256 of the email).
 */
export class SqlUsedCodeLedger implements UsedCodeLedger {
  constructor(private readonly engine: SqlQueryable) {}

  async claim(email: string, timeStep: number): Promise<boolean> {
    const rows = await this.engine.query(CLAIM, [
      createHash('sha256').update(email).digest('hex'),
      Math.floor(timeStep),
      USED_CODE_REMEMBER_SECONDS,
    ]);
    return rows.length === 1;
  }
}
