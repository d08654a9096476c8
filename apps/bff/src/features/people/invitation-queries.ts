// What admins and invitees read of invitations besides opening and accepting them: the open
// ones (the People screen), one by its token (the sign-up page, before a password is chosen),
// and withdrawing an email's open invitation.
import { createHash } from 'node:crypto';
import type { Role } from '@card-console/shared/api/meta';
import type { Clock } from '../../core/clock';
import { type Audited, committed, type SqlEngine } from '../../platform/sql/sql-engine';
import {
  InvitationExpiredError,
  InvitationNotFoundError,
  InvitationRevokedError,
  InvitationUsedError,
} from './people-errors';
import { inTransaction, lockPerson } from './people-transaction';
import { emailOf } from './person';

/** An invitation not yet accepted, withdrawn or expired. */
export interface OpenInvitation {
  email: string;
  role: Role;
  invitedBy: string;
  expiresAt: string;
}

/** An invitation its token names, still open: who it is for and with which role. */
export interface InvitationFound {
  email: string;
  role: Role;
  expiresAt: string;
}

interface InvitationRow {
  email: string;
  role: Role;
  invited_by: string;
  expires_at: Date | string;
  accepted_at: Date | string | null;
  revoked_at: Date | string | null;
  person_role: Role | null;
  password_hash: string | null;
  sso_issuer: string | null;
}

const iso = (value: Date | string) => new Date(value).toISOString();
const tokenShape = /^[A-Za-z0-9_-]{43}$/;

export async function openInvitations(engine: SqlEngine, clock: Clock): Promise<OpenInvitation[]> {
  const rows = await engine.query<InvitationRow>(
    `SELECT email, role, invited_by, expires_at FROM person_invitation
      WHERE accepted_at IS NULL AND revoked_at IS NULL AND expires_at > $1
      ORDER BY email`,
    [new Date(clock.now()).toISOString()],
  );
  return rows.map((row) => ({
    email: row.email,
    role: row.role,
    invitedBy: row.invited_by,
    expiresAt: iso(row.expires_at),
  }));
}

/**
 * The open invitation `token` names, judged as its acceptance would be (used, withdrawn,
 * expired, or its person no longer waiting to sign up: each its own error). The role is the
 * person's, which a newer invitation of the same email may have changed.
 */
export async function findInvitation(
  engine: SqlEngine,
  clock: Clock,
  token: unknown,
): Promise<InvitationFound> {
  if (typeof token !== 'string' || !tokenShape.test(token)) throw new InvitationNotFoundError();
  const [row] = await engine.query<InvitationRow>(
    `SELECT i.email, i.role, i.invited_by, i.expires_at, i.accepted_at, i.revoked_at,
            p.role AS person_role, p.password_hash, p.sso_issuer
       FROM person_invitation i LEFT JOIN person p ON p.email = i.email
      WHERE i.token_sha256 = $1`,
    [createHash('sha256').update(token).digest('hex')],
  );
  if (!row) throw new InvitationNotFoundError();
  if (row.accepted_at !== null) throw new InvitationUsedError();
  if (row.revoked_at !== null) throw new InvitationRevokedError();
  if (clock.now() >= new Date(row.expires_at).getTime()) throw new InvitationExpiredError();
  if (row.person_role === null || row.password_hash !== null || row.sso_issuer !== null) {
    throw new InvitationRevokedError();
  }
  return { email: row.email, role: row.person_role, expiresAt: iso(row.expires_at) };
}

/**
 * Withdraws the email's open invitation, and the person with it while they never signed up (a
 * withdrawn invitation leaves nobody waiting). False when the email has no open invitation.
 * Under the person's lock, as acceptance takes it: an acceptance at the same moment either
 * finished first (nothing open to withdraw) or finds the invitation withdrawn.
 */
export async function withdrawInvitation(
  engine: SqlEngine,
  clock: Clock,
  email: unknown,
  audited?: Audited<true>,
): Promise<boolean> {
  const key = emailOf(email);
  const at = new Date(clock.now()).toISOString();
  return inTransaction(engine, async (tx) => {
    const person = await lockPerson(tx, key);
    const withdrawn = await tx.query(
      `UPDATE person_invitation SET revoked_at = $2, totp_secret = NULL
        WHERE email = $1 AND accepted_at IS NULL AND revoked_at IS NULL RETURNING email`,
      [key, at],
    );
    if (withdrawn.length === 0) return false;
    if (person && person.password_hash === null && person.sso_issuer === null) {
      await tx.query('DELETE FROM person WHERE email = $1', [key]);
    }
    return committed(tx, true as const, audited);
  });
}
