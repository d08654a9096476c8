// A deployment that ran with DATABASE_URL before second factors moved into PostgreSQL kept them
// in DATA_DIR/second-factors.json. At start each replica brings its own file in once, then
// renames it `.imported` (kept). SQL decides every duplicate, so two replicas importing at once
// and a start that follows a half-done import add nothing twice. A person PostgreSQL already
// holds keeps their TOTP switch and passkeys; the file's other passkeys are added to theirs.
// A passkey id both hold keeps PostgreSQL's key, name and dates, with the higher counter and
// latest use of the two (a lower counter would let a cloned authenticator replay what the
// original already used).
import { lstat, rename } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { AuditStore } from '../audit/audit-store';
import { auditedChange } from '../audit/audited-change';
import { createAuditPool } from '../audit/postgres-audit';
import { newRequestId } from '../request-ids';
import { postgresEngine, type SqlEngine, type SqlQueryable } from '../sql/sql-engine';
import {
  MAX_PASSKEYS_PER_PERSON,
  oldestFirst,
  type PersonFactors,
  type StoredPasskey,
  storablePasskey,
  storableTotpSecret,
} from './factor-store';
import { readPeople, SECOND_FACTORS_FILE } from './file-factor-store';
import { ADD_PASSKEY, type AddPasskeyOutcome } from './sql-factor-store';

/** Who the import's audit records name: no person did it, the start-up did. */
export const IMPORT_ACTOR = 'system';

export interface ImportedFactors {
  /** People who got at least one passkey (one audit record each). */
  people: number;
  passkeys: number;
  /** Passkeys whose id another person holds in PostgreSQL, or past the 10 a person may hold. */
  skipped: number;
}

interface Deps {
  engine: SqlEngine;
  audit: AuditStore;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
}

// Locks the person's row, making it when missing; `created` tells a person new to PostgreSQL
// (xmax is 0 on a row this statement inserted, set on one it locked).
const LOCK_PERSON = `
INSERT INTO person_factors (email) VALUES ($1)
ON CONFLICT (email) DO UPDATE SET totp_disabled = person_factors.totp_disabled
RETURNING (xmax = 0) AS created`;

const RAISE_COUNTER = `
UPDATE person_passkey
   SET counter = greatest(counter, $3::bigint),
       last_used_at = greatest(last_used_at, $4::bigint)
 WHERE id = $2 AND email = $1`;

async function addPasskey(tx: SqlQueryable, email: string, passkey: StoredPasskey) {
  const p = storablePasskey(passkey);
  await tx.query(RAISE_COUNTER, [email, p.id, p.counter, p.lastUsedAt ?? null]);
  const [row] = await tx.query<{ outcome: AddPasskeyOutcome }>(ADD_PASSKEY, [
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
  return row?.outcome ?? 'elsewhere';
}

/** One person in one transaction, their audit record appended last inside it. */
async function importPerson(deps: Deps, email: string, factors: PersonFactors) {
  const record = (added: number, totpOff: boolean) => ({
    actor: IMPORT_ACTOR,
    action: 'factor.enrolled' as const,
    outcome: 'success' as const,
    method: 'passkey' as const,
    target: email,
    detail: `imported at start from ${SECOND_FACTORS_FILE}: ${added} passkey${added === 1 ? '' : 's'}${totpOff ? ', TOTP off' : ''}`,
    requestId: newRequestId(),
  });
  return auditedChange(
    { audit: deps.audit, logger: deps.logger },
    (beforeCommit) =>
      deps.engine.transaction(async (tx) => {
        const [lock] = await tx.query<{ created: boolean }>(LOCK_PERSON, [email]);
        const outcomes: AddPasskeyOutcome[] = [];
        for (const passkey of [...factors.passkeys].sort(oldestFirst)) {
          outcomes.push(await addPasskey(tx, email, passkey));
        }
        const added = outcomes.filter((o) => o === 'added').length;
        // Off only for a person new here who now has a passkey: never another's choice undone.
        const totpOff = lock?.created === true && factors.totpDisabled && added > 0;
        if (totpOff) {
          await tx.query('UPDATE person_factors SET totp_disabled = true WHERE email = $1', [
            email,
          ]);
        }
        // A secret the person set up on Security comes along for a person new here (sealed: it
        // is copied, never opened); one PostgreSQL holds already is theirs to keep.
        if (lock?.created === true && factors.totpSecret !== undefined) {
          await tx.query('UPDATE person_factors SET totp_secret = $2 WHERE email = $1', [
            email,
            storableTotpSecret(factors.totpSecret),
          ]);
        }
        await tx.query(
          `DELETE FROM person_factors f
            WHERE f.email = $1 AND NOT f.totp_disabled AND f.totp_secret IS NULL
              AND NOT EXISTS (SELECT FROM person_passkey WHERE email = $1)`,
          [email],
        );
        const result = { added, totpOff, outcomes };
        if (added > 0) await beforeCommit(result, tx);
        return result;
      }),
    ({ added, totpOff }) => (added > 0 ? [record(added, totpOff)] : []),
  );
}

/** Brings `people` into PostgreSQL, in one order for every replica (none waits in a circle). */
export async function importFactors(
  deps: Deps,
  people: ReadonlyMap<string, PersonFactors>,
): Promise<ImportedFactors> {
  const result: ImportedFactors = { people: 0, passkeys: 0, skipped: 0 };
  const byEmail = [...people]
    .map(([email, factors]) => ({ email: email.toLowerCase(), factors }))
    .sort((x, y) => (x.email < y.email ? -1 : x.email > y.email ? 1 : 0));
  for (const { email, factors } of byEmail) {
    const { added, outcomes } = await importPerson(deps, email, factors);
    if (added > 0) result.people += 1;
    result.passkeys += added;
    const skipped = outcomes.filter((o) => o === 'too_many' || o === 'elsewhere').length;
    if (skipped > 0) {
      deps.logger.warn(
        { person: email, skipped, file: SECOND_FACTORS_FILE },
        `${skipped} of this person's passkeys in ${SECOND_FACTORS_FILE} not imported: another person holds the id, or they already have ${MAX_PASSKEYS_PER_PERSON}`,
      );
    }
    result.skipped += skipped;
  }
  return result;
}

/** `<file>.imported`, or `.imported.2`… when an earlier import's copy is there: none overwritten. */
async function keptName(path: string): Promise<string> {
  for (let n = 1; ; n += 1) {
    const candidate = `${path}.imported${n === 1 ? '' : `.${n}`}`;
    try {
      await lstat(candidate);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return candidate;
      throw error;
    }
  }
}

/**
 * At start with DATABASE_URL: DATA_DIR's second-factors file, if any, into PostgreSQL, then
 * renamed. Never throws: a file it cannot read or a database that fails is logged as an error
 * and the file stays for the next start (which adds only what is still missing).
 */
export async function importFactorsFile(deps: Deps & { dataDir: string }): Promise<void> {
  const path = join(deps.dataDir, SECOND_FACTORS_FILE);
  const fail = (error: unknown, what: string) =>
    deps.logger.error(
      { err: error, file: path },
      `${what}; ${path} is left in place and tried again at the next start`,
    );
  try {
    await lstat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    fail(error, `second factors not imported: ${path} cannot be read`);
    return;
  }
  let imported: ImportedFactors;
  try {
    imported = await importFactors(deps, await readPeople(path));
  } catch (error) {
    fail(error, `second factors not imported into PostgreSQL: ${(error as Error).message}`);
    return;
  }
  deps.logger.info(
    { ...imported, file: path },
    `second factors imported into PostgreSQL from ${path}: ${imported.people} people, ${imported.passkeys} passkeys`,
  );
  try {
    await rename(path, await keptName(path));
  } catch (error) {
    // Another replica on the same DATA_DIR renamed it first.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    fail(error, `second factors imported, but ${path} could not be renamed`);
  }
}

/** The import on a pool of its own, closed when done: for server.ts, with DATABASE_URL. */
export async function importFactorsFileAtStart(options: {
  url: string;
  dataDir: string;
  audit: AuditStore;
  logger: Logger;
}): Promise<void> {
  const engine = postgresEngine(createAuditPool(options.url, options.logger, 2));
  try {
    await importFactorsFile({ ...options, engine });
  } finally {
    await engine.close();
  }
}
