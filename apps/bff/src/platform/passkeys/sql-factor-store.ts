// Second factors in the SQL engine, shared by every replica on PostgreSQL (tables in
// migrations/transaction-index/20261129120000000_shared-factors-and-day-aggregates.sql).
// A conditional change locks the person's `person_factors` row first, then decides and writes
// in one statement, so two replicas asking at once for one person decide one after the other;
// a credential id is enrolled once by its primary key. Nothing stored here signs anyone in.
import type { SqlEngine, SqlQueryable } from '../sql/sql-engine';
import {
  type BeforeWrite,
  checkPasskeyUse,
  type FactorStore,
  MAX_PASSKEYS_PER_PERSON,
  noFactors,
  type PersonFactors,
  type StoredPasskey,
  storablePasskey,
  storableTotpSecret,
  storedPasskeySchema,
} from './factor-store';

// Numbers as float8: both engines hand bigint back as text (pg) or BigInt (PGlite); the
// columns' checks keep them within what a double holds exactly.
const passkeyColumns = `p.id, p.public_key AS "publicKey", p.counter::float8 AS counter,
  p.transports, p.name, p.created_at::float8 AS "createdAt",
  p.last_used_at::float8 AS "lastUsedAt"`;

/**
 * Adds a passkey under the person's row lock (taken first), deciding in one statement:
 * `present` when this person holds the id already, `elsewhere` when another person does (also
 * when another transaction committed the id after this statement began: ON CONFLICT waited for
 * it, and it cannot be this person's, whose row is locked), `too_many` at the bound ($9).
 * The second factors' store and the import of a second-factors file both add through it.
 */
export const ADD_PASSKEY = `
WITH taken AS (SELECT email FROM person_passkey WHERE id = $2),
held AS (SELECT count(*) AS n FROM person_passkey WHERE email = $1),
added AS (
  INSERT INTO person_passkey (id, email, public_key, counter, transports, name, created_at, last_used_at)
  SELECT $2::text, $1::text, $3::text, $4::bigint, $5::text[], $6::text, $7::bigint, $8::bigint
   WHERE NOT EXISTS (SELECT FROM taken) AND (SELECT n FROM held) < $9::bigint
  ON CONFLICT (id) DO NOTHING
  RETURNING 1
)
SELECT CASE WHEN EXISTS (SELECT FROM added) THEN 'added'
            WHEN EXISTS (SELECT FROM taken WHERE email = $1) THEN 'present'
            WHEN NOT EXISTS (SELECT FROM taken) AND (SELECT n FROM held) >= $9 THEN 'too_many'
            ELSE 'elsewhere' END AS outcome`;

export type AddPasskeyOutcome = 'added' | 'present' | 'too_many' | 'elsewhere';

// Not the last passkey of a person with TOTP off.
const REMOVE = `
WITH target AS (SELECT 1 FROM person_passkey WHERE id = $2 AND email = $1),
guarded AS (
  SELECT f.totp_disabled AND (SELECT count(*) FROM person_passkey WHERE email = $1) <= 1 AS last
    FROM person_factors f WHERE f.email = $1
),
removed AS (
  DELETE FROM person_passkey
   WHERE id = $2 AND email = $1 AND NOT coalesce((SELECT last FROM guarded), false)
  RETURNING 1
)
SELECT CASE WHEN EXISTS (SELECT FROM removed) THEN 'removed'
            WHEN EXISTS (SELECT FROM target) THEN 'last_factor'
            ELSE 'not_found' END AS outcome`;

// Off only with a passkey; back on at any time.
const SET_TOTP = `
WITH switched AS (
  UPDATE person_factors SET totp_disabled = $2
   WHERE email = $1 AND totp_disabled IS DISTINCT FROM $2
     AND (NOT $2 OR EXISTS (SELECT FROM person_passkey WHERE email = $1))
  RETURNING 1
)
SELECT CASE WHEN EXISTS (SELECT FROM switched) THEN 'ok'
            WHEN $2::boolean AND NOT EXISTS (SELECT FROM person_passkey WHERE email = $1)
              THEN 'no_passkey'
            ELSE 'unchanged' END AS outcome`;

// A person's own secret, replacing any older one; TOTP on again with it.
const SET_TOTP_SECRET = `
UPDATE person_factors SET totp_secret = $2, totp_disabled = false WHERE email = $1
RETURNING 'ok' AS outcome`;

/** Second factors in the SQL engine: one replica on PGlite, any number on PostgreSQL. */
export class SqlFactorStore implements FactorStore {
  constructor(private readonly engine: SqlEngine) {}

  async get(email: string): Promise<PersonFactors> {
    const rows = await this.engine.query<
      { totp_disabled: boolean; totp_secret: string | null } & Record<string, unknown>
    >(
      `SELECT f.totp_disabled, f.totp_secret, ${passkeyColumns}
         FROM person_factors f LEFT JOIN person_passkey p ON p.email = f.email
        WHERE f.email = $1
        ORDER BY p.created_at, p.id`,
      [email],
    );
    const [first] = rows;
    if (!first) return noFactors();
    const passkeys: StoredPasskey[] = [];
    for (const { totp_disabled: _, totp_secret: __, ...row } of rows) {
      if (row.id === null) continue;
      const passkey = readPasskey(row);
      // One unreadable row costs that passkey, not the person's sign-in.
      if (passkey) passkeys.push(passkey);
    }
    return {
      passkeys,
      totpDisabled: first.totp_disabled,
      ...(first.totp_secret !== null ? { totpSecret: first.totp_secret } : {}),
    };
  }

  async addPasskey(
    email: string,
    passkey: StoredPasskey,
    audited?: BeforeWrite,
  ): Promise<'added' | 'duplicate' | 'too_many'> {
    const p = storablePasskey(passkey);
    const outcome = await this.change<AddPasskeyOutcome>(email, audited, 'added', ADD_PASSKEY, [
      email,
      p.id,
      p.publicKey,
      p.counter,
      p.transports ?? null,
      p.name,
      p.createdAt,
      p.lastUsedAt ?? null,
      MAX_PASSKEYS_PER_PERSON,
    ]);
    return outcome === 'present' || outcome === 'elsewhere' ? 'duplicate' : outcome;
  }

  async renamePasskey(
    email: string,
    id: string,
    name: string,
    audited?: BeforeWrite,
  ): Promise<StoredPasskey | undefined> {
    return this.engine.transaction(async (tx) => {
      const [was] = await tx.query<{ name: string }>(
        'SELECT name FROM person_passkey WHERE id = $2 AND email = $1 FOR UPDATE',
        [email, id],
      );
      if (!was) return undefined;
      const [row] = await tx.query<Record<string, unknown>>(
        `UPDATE person_passkey p SET name = $3 WHERE p.id = $2 AND p.email = $1
         RETURNING ${passkeyColumns}`,
        [email, id, name],
      );
      // Its record (handed the name it had, read under the row's lock) commits with the new
      // name, or neither does.
      if (was.name !== name) await audited?.(was.name);
      return row ? readPasskey(row) : undefined;
    });
  }

  async removePasskey(
    email: string,
    id: string,
    audited?: BeforeWrite,
  ): Promise<'removed' | 'not_found' | 'last_factor'> {
    return this.change(email, audited, 'removed', REMOVE, [email, id]);
  }

  async setTotpDisabled(
    email: string,
    disabled: boolean,
    audited?: BeforeWrite,
  ): Promise<'ok' | 'unchanged' | 'no_passkey'> {
    return this.change(email, audited, 'ok', SET_TOTP, [email, disabled]);
  }

  async setTotpSecret(email: string, sealed: string, audited?: BeforeWrite): Promise<'ok'> {
    return this.change(email, audited, 'ok', SET_TOTP_SECRET, [email, storableTotpSecret(sealed)]);
  }

  async resealTotpSecret(email: string, from: string, to: string): Promise<boolean> {
    const rows = await this.engine.query(
      'UPDATE person_factors SET totp_secret = $3 WHERE email = $1 AND totp_secret = $2 RETURNING 1',
      [email, from, storableTotpSecret(to)],
    );
    return rows.length > 0;
  }

  async recordUse(email: string, id: string, counter: number, at: number): Promise<boolean> {
    checkPasskeyUse(counter, at);
    // The counter and lastUsedAt only move forward, whatever order uses arrive in.
    const rows = await this.engine.query(
      `UPDATE person_passkey
          SET counter = greatest(counter, $3),
              last_used_at = greatest(coalesce(last_used_at, $4), $4)
        WHERE id = $2 AND email = $1
       RETURNING 1`,
      [email, id, counter, at],
    );
    return rows.length > 0;
  }

  async forget(email: string): Promise<number> {
    return this.engine.transaction(async (tx) => {
      await lockPerson(tx, email);
      const dropped = await tx.query('DELETE FROM person_passkey WHERE email = $1 RETURNING 1', [
        email,
      ]);
      await tx.query('DELETE FROM person_factors WHERE email = $1', [email]);
      return dropped.length;
    });
  }

  /**
   * One conditional change in a transaction: the person's row locked (made when missing),
   * `statement` deciding and writing, the row dropped again when it holds nothing, and last
   * the audit hook when the change was made (throwing rolls it all back).
   */
  private async change<T extends string>(
    email: string,
    audited: BeforeWrite,
    done: T,
    statement: string,
    params: readonly unknown[],
  ): Promise<T> {
    return this.engine.transaction(async (tx) => {
      await lockPerson(tx, email);
      const [row] = await tx.query<{ outcome: T }>(statement, params);
      const outcome = row?.outcome as T;
      await tx.query(
        `DELETE FROM person_factors f
          WHERE f.email = $1 AND NOT f.totp_disabled AND f.totp_secret IS NULL
            AND NOT EXISTS (SELECT FROM person_passkey WHERE email = $1)`,
        [email],
      );
      if (outcome === done) await audited?.(outcome);
      return outcome;
    });
  }
}

/**
 * Takes the person's row lock until the transaction ends. A replica waiting here decides on
 * what the one before it committed (each later statement reads afresh); a row deleted while
 * waited for is made again.
 */
async function lockPerson(tx: SqlQueryable, email: string): Promise<void> {
  await tx.query(
    `INSERT INTO person_factors (email) VALUES ($1)
     ON CONFLICT (email) DO UPDATE SET totp_disabled = person_factors.totp_disabled`,
    [email],
  );
}

function readPasskey(row: Record<string, unknown>): StoredPasskey | undefined {
  const { transports, lastUsedAt, ...rest } = row;
  const parsed = storedPasskeySchema.safeParse({
    ...rest,
    ...(transports === null ? {} : { transports }),
    ...(lastUsedAt === null ? {} : { lastUsedAt }),
  });
  return parsed.success ? parsed.data : undefined;
}
