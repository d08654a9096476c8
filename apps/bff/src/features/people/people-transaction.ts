// The people store's transactions. A change that could leave the product without an admin
// first locks the person and every admin row, in one statement and in email order: two such
// changes at once (two replicas, two pool connections) queue on the same rows in the same order,
// so the second sees what the first did and neither waits for the other in a circle.
import { setTimeout as sleep } from 'node:timers/promises';
import type { SqlEngine, SqlQueryable } from '../../platform/sql/sql-engine';
import { PERSON_COLUMNS, type PersonRow } from './person';

/** Deadlock and serialization failures: the transaction did nothing and may simply run again. */
const RETRYABLE = new Set(['40P01', '40001']);
const ATTEMPTS = 5;

const sqlStateOf = (error: unknown) =>
  typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;

/** Runs `work` in one transaction, again (a few times) when the server asks for a retry. */
export async function inTransaction<T>(
  engine: SqlEngine,
  work: (tx: SqlQueryable) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await engine.transaction(work);
    } catch (error) {
      const state = sqlStateOf(error);
      if (attempt >= ATTEMPTS || typeof state !== 'string' || !RETRYABLE.has(state)) throw error;
      await sleep(Math.random() * 20 * attempt);
    }
  }
}

/**
 * Locks `email`'s row and every admin's, and returns them. Under READ COMMITTED a row another
 * transaction changed meanwhile is read again once its lock is free, and left out when it is no
 * longer an admin (or gone): what the caller counts is what is committed.
 */
export async function lockPersonAndAdmins(tx: SqlQueryable, email: string): Promise<PersonRow[]> {
  return tx.query<PersonRow>(
    `SELECT ${PERSON_COLUMNS} FROM person WHERE email = $1 OR role = 'admin'
      ORDER BY email FOR UPDATE`,
    [email],
  );
}

export async function lockPerson(tx: SqlQueryable, email: string): Promise<PersonRow | undefined> {
  const [row] = await tx.query<PersonRow>(
    `SELECT ${PERSON_COLUMNS} FROM person WHERE email = $1 FOR UPDATE`,
    [email],
  );
  return row;
}
