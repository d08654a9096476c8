// Invitations: an admin invites an email with a role; the person appears at once, pending (no
// password), and signs up with the token, once. Only the token's SHA-256 is stored: whoever
// reads the database cannot sign up as anyone. The invitee's authenticator secret is made here
// (issueInvitationSecret), kept sealed to the invitation, and becomes theirs when they sign up.
import { createHash, randomBytes } from 'node:crypto';
import type { Role } from '@card-console/shared/api/meta';
import type { Clock } from '../../core/clock';
import { newTotpSecret } from '../../platform/security/totp';
import type { TotpSecretBox } from '../../platform/security/totp-secret-box';
import {
  type Audited,
  committed,
  type SqlEngine,
  type SqlQueryable,
} from '../../platform/sql/sql-engine';
import {
  InvalidPersonInputError,
  InvitationExpiredError,
  InvitationNotFoundError,
  InvitationRevokedError,
  InvitationSecretReplacedError,
  InvitationUsedError,
  PersonExistsError,
  SecondFactorRequiredError,
} from './people-errors';
import { inTransaction, lockPerson } from './people-transaction';
import {
  emailOf,
  PERSON_COLUMNS,
  type Person,
  type PersonRow,
  passwordHashOf,
  personOf,
  personSecretOwner,
  roleOf,
  totpSecretOf,
} from './person';

/** The longest an invitation may stay open. */
export const MAX_INVITATION_TTL_MS = 30 * 24 * 60 * 60 * 1000;

export interface Invitation {
  /** The token to send the person: shown this once, never stored. */
  token: string;
  email: string;
  role: Role;
  expiresAt: string;
}

interface InvitationRow {
  email: string;
  expires_at: Date | string;
  accepted_at: Date | string | null;
  revoked_at: Date | string | null;
  /** The sealed secret made for the invitee's authenticator, until they sign up. */
  totp_secret: string | null;
}

const tokenHash = (token: string) => createHash('sha256').update(token).digest('hex');
/** Whom an invitation's sealed secret belongs to: that invitation only, by its token's hash. */
export const invitationSecretOwner = (key: string) => `invitation:${key}`;
/** 32 random bytes in base64url: 43 characters. */
const tokenShape = /^[A-Za-z0-9_-]{43}$/;

const isPending = (row: PersonRow) => row.password_hash === null && row.sso_issuer === null;

export async function invite(
  engine: SqlEngine,
  clock: Clock,
  input: { email: unknown; role: unknown; by: unknown; ttlMs: number },
  audited?: Audited<Invitation>,
): Promise<Invitation> {
  const email = emailOf(input.email);
  const role = roleOf(input.role);
  const by = emailOf(input.by);
  const { ttlMs } = input;
  if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0 || ttlMs > MAX_INVITATION_TTL_MS) {
    throw new InvalidPersonInputError('ttlMs', 'must be a whole number of ms up to 30 days');
  }
  const token = randomBytes(32).toString('base64url');
  const now = clock.now();
  const at = new Date(now).toISOString();
  const expiresAt = new Date(now + ttlMs).toISOString();
  await inTransaction(engine, async (tx) => {
    // Another invitation of the same email at once waits here for this one to commit, then
    // finds the pending person and replaces this invitation with its own.
    const [created] = await tx.query<PersonRow>(
      `INSERT INTO person (email, role, source, created_at, updated_at, version)
       VALUES ($1, $2, 'invited', $3, $3, 1) ON CONFLICT (email) DO NOTHING RETURNING email`,
      [email, role, at],
    );
    if (!created) {
      const person = await lockPerson(tx, email);
      // Removed between the two statements: the next attempt creates them.
      if (!person) throw Object.assign(new Error('person removed meanwhile'), { code: '40001' });
      if (!isPending(person)) throw new PersonExistsError(email, person.disabled);
      if (person.role !== role) {
        await tx.query(
          'UPDATE person SET role = $2, version = version + 1, updated_at = $3 WHERE email = $1',
          [email, role, at],
        );
      }
    }
    await tx.query(
      `UPDATE person_invitation SET revoked_at = $2, totp_secret = NULL
        WHERE email = $1 AND accepted_at IS NULL AND revoked_at IS NULL`,
      [email, at],
    );
    await tx.query(
      `INSERT INTO person_invitation (token_sha256, email, role, invited_by, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [tokenHash(token), email, role, by, at, expiresAt],
    );
    await audited?.({ token, email, role, expiresAt }, tx);
  });
  return { token, email, role, expiresAt };
}

/**
 * The open invitation `token` names and its pending person, locked (the person first, then the
 * invitation: the order removal and invitation take them in), or the reason it is not open.
 */
async function lockOpenInvitation(
  tx: SqlQueryable,
  now: number,
  token: unknown,
): Promise<{ key: string; person: PersonRow; invitation: InvitationRow }> {
  if (typeof token !== 'string' || !tokenShape.test(token)) throw new InvitationNotFoundError();
  const key = tokenHash(token);
  const [seen] = await tx.query<InvitationRow>(
    'SELECT email FROM person_invitation WHERE token_sha256 = $1',
    [key],
  );
  if (!seen) throw new InvitationNotFoundError();
  const person = await lockPerson(tx, seen.email);
  const [invitation] = await tx.query<InvitationRow>(
    `SELECT email, expires_at, accepted_at, revoked_at, totp_secret FROM person_invitation
      WHERE token_sha256 = $1 FOR UPDATE`,
    [key],
  );
  if (!invitation) throw new InvitationNotFoundError();
  if (invitation.accepted_at !== null) throw new InvitationUsedError();
  if (invitation.revoked_at !== null) throw new InvitationRevokedError();
  if (now >= new Date(invitation.expires_at).getTime()) throw new InvitationExpiredError();
  if (!person || !isPending(person)) throw new InvitationRevokedError();
  return { key, person, invitation };
}

/**
 * Makes the invitee's authenticator secret (160 random bits), sealed to this invitation: shown
 * this once, in the answer. Asked again, a new one replaces it, so the one shown last is the one
 * whose codes the sign-up takes.
 */
export async function issueInvitationSecret(
  engine: SqlEngine,
  clock: Clock,
  secrets: TotpSecretBox,
  token: unknown,
): Promise<{ email: string; secret: string }> {
  return inTransaction(engine, async (tx) => {
    const { key, person } = await lockOpenInvitation(tx, clock.now(), token);
    const secret = newTotpSecret();
    await tx.query('UPDATE person_invitation SET totp_secret = $2 WHERE token_sha256 = $1', [
      key,
      secrets.seal(invitationSecretOwner(key), secret),
    ]);
    return { email: person.email, secret };
  });
}

/** The secret last made for this invitation, or undefined when none was (or it cannot be read). */
export async function invitationSecret(
  engine: SqlEngine,
  secrets: TotpSecretBox,
  token: unknown,
): Promise<string | undefined> {
  if (typeof token !== 'string' || !tokenShape.test(token)) return undefined;
  const key = tokenHash(token);
  const [row] = await engine.query<InvitationRow>(
    'SELECT totp_secret FROM person_invitation WHERE token_sha256 = $1',
    [key],
  );
  if (!row?.totp_secret) return undefined;
  try {
    return secrets.open(invitationSecretOwner(key), row.totp_secret).secret;
  } catch {
    // Sealed under a key since dropped: the invitee asks for a new one.
    return undefined;
  }
}

/**
 * Signs the invited person up: their password hash (and TOTP secret; an admin needs one) is
 * set and the invitation used, in one transaction under the person's and the invitation's locks,
 * so of two acceptances at once exactly one succeeds and the other is told it was used. When a
 * secret was made for the invitation, `totpSecret` must be that one (the one whose code was
 * checked); a secret made elsewhere (`pnpm users add`) is taken when none was.
 */
export async function acceptInvitation(
  engine: SqlEngine,
  clock: Clock,
  secrets: TotpSecretBox,
  token: unknown,
  passwordHash: unknown,
  totpSecret?: unknown,
  audited?: Audited<Person>,
): Promise<Person> {
  const hash = passwordHashOf(passwordHash);
  const secret = totpSecret === undefined ? null : totpSecretOf(totpSecret);
  return inTransaction(engine, async (tx) => {
    const now = clock.now();
    const { key, person, invitation } = await lockOpenInvitation(tx, now, token);
    if (person.role === 'admin' && secret === null) throw new SecondFactorRequiredError();
    if (secret !== null && invitation.totp_secret !== null) {
      const issued = secrets.open(invitationSecretOwner(key), invitation.totp_secret).secret;
      if (issued !== secret) throw new InvitationSecretReplacedError();
    }
    const at = new Date(now).toISOString();
    await tx.query(
      `UPDATE person_invitation SET accepted_at = $2, totp_secret = NULL
        WHERE token_sha256 = $1`,
      [key, at],
    );
    const [updated] = await tx.query<PersonRow>(
      `UPDATE person SET password_hash = $2, totp_secret = $3, totp_secret_unsealed = NULL,
         version = version + 1, updated_at = $4 WHERE email = $1 RETURNING ${PERSON_COLUMNS}`,
      [
        person.email,
        hash,
        secret === null ? null : secrets.seal(personSecretOwner(person.email), secret),
        at,
      ],
    );
    return committed(tx, personOf(updated as PersonRow), audited);
  });
}
