// People's TOTP secrets, sealed in the store (platform/security/totp-secret-box.ts, migration
// `totp-secrets-sealed`). A secret is opened only to check a code, and sealed again with the
// current key whenever it was not (one sealed under a previous key, or one kept in clear before
// secrets were sealed): when it is used, and by `sealSecrets` over everyone when the server
// opens the store. Sealing again is not a change of the person: their version stays, and so do
// their sessions. Each write names the value it replaces, so replicas doing it at once agree.
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock';
import {
  TotpKeyMissingError,
  type TotpSecretBox,
  TotpSecretUnreadableError,
} from '../../platform/security/totp-secret-box';
import type { SqlEngine } from '../../platform/sql/sql-engine';
import { invitationSecretOwner } from './people-invitations';
import { type PersonRow, personSecretOwner, totpSecretOf } from './person';

type SecretRow = Pick<PersonRow, 'email' | 'totp_secret' | 'totp_secret_unsealed'>;

/** What `sealSecrets` did, and the secrets no key held opens (named by the key they name). */
export interface SecretsSealed {
  /** Kept in clear before, sealed now. */
  sealed: number;
  /** Sealed with a previous key, sealed with the current one now. */
  resealed: number;
  /** People whose secret no configured key opens; their codes cannot be checked. */
  unreadable: { email: string; keyId: string | undefined }[];
}

/**
 * The person's secret, opened; sealed again with the current key first when it was not. Throws
 * TotpSecretUnreadableError when no key held opens it.
 */
export async function openPersonSecret(
  engine: SqlEngine,
  secrets: TotpSecretBox,
  row: SecretRow,
): Promise<string | undefined> {
  const owner = personSecretOwner(row.email);
  if (row.totp_secret !== null) {
    const { secret, current } = secrets.open(owner, row.totp_secret);
    if (!current) await reseal(engine, row.email, row.totp_secret, secrets.seal(owner, secret));
    return secret;
  }
  if (row.totp_secret_unsealed === null) return undefined;
  const secret = clearSecret(row.totp_secret_unsealed);
  await sealClear(engine, row.email, row.totp_secret_unsealed, secrets.seal(owner, secret));
  return secret;
}

/**
 * Seals every secret not sealed with the current key, and forgets the secrets made for
 * invitations that can no longer be used.
 */
export async function sealSecrets(
  engine: SqlEngine,
  secrets: TotpSecretBox,
  clock: Clock,
): Promise<SecretsSealed> {
  if (secrets.currentKeyId === undefined) throw new TotpKeyMissingError();
  const result: SecretsSealed = { sealed: 0, resealed: 0, unreadable: [] };
  const current = `v1:${secrets.currentKeyId}:`;
  const rows = await engine.query<SecretRow>(
    `SELECT email, totp_secret, totp_secret_unsealed FROM person
      WHERE totp_secret_unsealed IS NOT NULL OR left(totp_secret, $2) <> $1
      ORDER BY email`,
    [current, current.length],
  );
  for (const row of rows) {
    try {
      await openPersonSecret(engine, secrets, row);
      if (row.totp_secret === null) result.sealed += 1;
      else result.resealed += 1;
    } catch (error) {
      if (!(error instanceof TotpSecretUnreadableError)) throw error;
      result.unreadable.push({ email: row.email, keyId: error.keyId });
    }
  }
  await engine.query(
    `UPDATE person_invitation SET totp_secret = NULL WHERE totp_secret IS NOT NULL
        AND (accepted_at IS NOT NULL OR revoked_at IS NOT NULL OR expires_at <= $1)`,
    [new Date(clock.now()).toISOString()],
  );
  const open = await engine.query<{ token_sha256: string; totp_secret: string }>(
    `SELECT token_sha256, totp_secret FROM person_invitation
      WHERE left(totp_secret, $2) <> $1 ORDER BY token_sha256`,
    [current, current.length],
  );
  for (const row of open) {
    const owner = invitationSecretOwner(row.token_sha256);
    try {
      const { secret } = secrets.open(owner, row.totp_secret);
      await engine.query(
        'UPDATE person_invitation SET totp_secret = $3 WHERE token_sha256 = $1 AND totp_secret = $2',
        [row.token_sha256, row.totp_secret, secrets.seal(owner, secret)],
      );
    } catch (error) {
      if (!(error instanceof TotpSecretUnreadableError)) throw error;
      // The invitee asks for a new one: the sign-up page makes it.
    }
  }
  return result;
}

/** A secret kept in clear before: a malformed one is as unreadable as a sealed one no key opens. */
function clearSecret(value: string): string {
  try {
    return totpSecretOf(value);
  } catch {
    throw new TotpSecretUnreadableError(undefined, 'kept in clear, and not a base32 secret');
  }
}

async function reseal(engine: SqlEngine, email: string, was: string, sealed: string) {
  await engine.query('UPDATE person SET totp_secret = $3 WHERE email = $1 AND totp_secret = $2', [
    email,
    was,
    sealed,
  ]);
}

async function sealClear(engine: SqlEngine, email: string, was: string, sealed: string) {
  await engine.query(
    `UPDATE person SET totp_secret = $3, totp_secret_unsealed = NULL
      WHERE email = $1 AND totp_secret_unsealed = $2`,
    [email, was, sealed],
  );
}

/** One line for what sealing did; an error naming the keys wanted when some secret is unreadable. */
export function logSecretsSealed(logger: Pick<Logger, 'info' | 'error'>, done: SecretsSealed) {
  const { sealed, resealed, unreadable } = done;
  if (sealed + resealed > 0) {
    logger.info({ sealed, resealed }, 'second-factor secrets sealed with the current key');
  }
  if (unreadable.length === 0) return;
  const keys = [...new Set(unreadable.map((u) => u.keyId ?? 'none'))].join(', ');
  logger.error(
    { people: unreadable.map((u) => u.email), keys },
    `${unreadable.length} second-factor secret(s) no configured key opens (sealed with key ${keys}): those people cannot pass a TOTP check until TOTP_ENCRYPTION_KEY or TOTP_ENCRYPTION_KEYS_PREVIOUS holds that key again`,
  );
}
