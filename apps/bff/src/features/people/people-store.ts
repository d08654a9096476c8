// People in the SQL store the replicas share (PostgreSQL or the embedded engine; migration
// `people`): who may sign in, with which role. Rules that hold however many replicas change
// people at once: the product always keeps an enabled admin who can sign in (changes that could
// remove the last one run under the admin rows' locks), an invitation is used once, and the
// users file is imported once, never over what was changed here. Every change of a person bumps
// their `version`, which their sessions will compare. TOTP secrets are kept sealed with the
// configured key (person-secrets.ts); without one, nothing that needs a secret can be done.
import { type Clock, systemClock } from '../../core/clock';
import { TotpSecretBox } from '../../platform/security/totp-secret-box';
import {
  type Audited,
  committed,
  type SqlEngine,
  type SqlQueryable,
} from '../../platform/sql/sql-engine';
import type { User } from '../../platform/users/user-directory';
import {
  findInvitation,
  type InvitationFound,
  type OpenInvitation,
  openInvitations,
  withdrawInvitation,
} from './invitation-queries';
import {
  LastAdminError,
  LastSignInWayError,
  PersonNotFoundError,
  RoleFromProviderError,
  SsoEmailTakenError,
  SsoLinkTakenError,
} from './people-errors';
import {
  acceptInvitation,
  type Invitation,
  invitationSecret,
  invite,
  issueInvitationSecret,
} from './people-invitations';
import { inTransaction, lockPersonAndAdmins } from './people-transaction';
import {
  emailOf,
  isActiveAdmin,
  issuerOf,
  PERSON_COLUMNS,
  type Person,
  type PersonRow,
  type PersonSummary,
  passwordHashOf,
  personOf,
  personSecretOwner,
  roleOf,
  signInMethodOf,
  subjectOf,
  summaryOf,
  totpSecretOf,
} from './person';
import { openPersonSecret, type SecretsSealed, sealSecrets } from './person-secrets';

/** What an import did: the emails added, and those left as they were (imported before). */
export interface ImportResult {
  added: string[];
  kept: string[];
}

type AdminLoss = 'demote' | 'disable' | 'remove';

/** Drops, in `tx`, what a feature keeps as `email`'s alone; what it dropped, in words. */
export type LeftBehind = (tx: SqlQueryable, email: string) => Promise<string[]>;

/** A person as they were when removed, and what went with them, in words. */
export type RemovedPerson = Person & { leftBehind: string[] };

export class PeopleStore {
  constructor(
    private readonly engine: SqlEngine,
    private readonly clock: Clock = systemClock,
    /** Seals and opens TOTP secrets; with no key, refuses to (TotpKeyMissingError). */
    private readonly secrets: TotpSecretBox = new TotpSecretBox(undefined),
    /**
     * What other features keep as a person's alone, dropped in `tx` when they are removed (their
     * receipt inbox, their alert rules: src/stores.ts wires them). None by default.
     */
    private readonly leftBehind?: LeftBehind,
  ) {}

  /** Everyone, by email, without their credentials. */
  async list(): Promise<PersonSummary[]> {
    const rows = await this.engine.query<PersonRow>(
      `SELECT ${PERSON_COLUMNS} FROM person ORDER BY email`,
    );
    return rows.map(summaryOf);
  }

  /** Whether anyone enabled may sign in with a password (the sign-in page offers the form). */
  async anyoneWithPassword(): Promise<boolean> {
    const [row] = await this.engine.query<{ any: boolean }>(
      `SELECT EXISTS (SELECT FROM person WHERE password_hash IS NOT NULL AND NOT disabled) AS any`,
    );
    return row?.any === true;
  }

  /** The person with this email, whatever its case. */
  async find(email: unknown): Promise<Person | undefined> {
    const [row] = await this.engine.query<PersonRow>(
      `SELECT ${PERSON_COLUMNS} FROM person WHERE email = $1`,
      [emailOf(email)],
    );
    return row && this.withSecret(row);
  }

  /** The person linked to this single sign-on identity (a trailing slash of the issuer aside). */
  async findBySso(issuer: unknown, subject: unknown): Promise<Person | undefined> {
    const [row] = await this.engine.query<PersonRow>(
      `SELECT ${PERSON_COLUMNS} FROM person WHERE sso_issuer = $1 AND sso_subject = $2`,
      [issuerOf(issuer), subjectOf(subject)],
    );
    return row && this.withSecret(row);
  }

  /**
   * Seals every TOTP secret not sealed with the current key (kept in clear before, or under a
   * previous key) and forgets those made for invitations no longer open. The server runs it when
   * it opens the store; a secret is also sealed again when it is used.
   */
  sealSecrets(): Promise<SecretsSealed> {
    return sealSecrets(this.engine, this.secrets, this.clock);
  }

  /**
   * Brings in the users file's people not imported before, in one transaction. An email
   * imported once is never imported again, so a person changed or removed here stays so; a
   * person already here (invited, or through single sign-on) is left as they are. Replicas
   * importing at once queue on each email's row and import it once between them.
   */
  async importUsers(users: readonly User[]): Promise<ImportResult> {
    const entries = users
      .map((user) => ({ user, email: emailOf(user.email) }))
      .map(({ user, email }) => ({
        email,
        role: roleOf(user.role),
        passwordHash: passwordHashOf(user.passwordHash),
        totpSecret:
          user.totpSecret === undefined
            ? null
            : this.secrets.seal(personSecretOwner(email), totpSecretOf(user.totpSecret)),
        disabled: user.disabled === true,
        issuer: user.sso ? issuerOf(user.sso.issuer) : null,
        subject: user.sso ? subjectOf(user.sso.subject) : null,
      }))
      // One order for every replica: none waits for another in a circle.
      .sort((a, b) => (a.email < b.email ? -1 : a.email > b.email ? 1 : 0));
    const at = new Date(this.clock.now()).toISOString();
    return inTransaction(this.engine, async (tx) => {
      const result: ImportResult = { added: [], kept: [] };
      for (const entry of entries) {
        const [first] = await tx.query(
          `INSERT INTO person_import (email, imported_at) VALUES ($1, $2)
           ON CONFLICT (email) DO NOTHING RETURNING email`,
          [entry.email, at],
        );
        const [added] = first
          ? await tx.query(
              `INSERT INTO person (email, role, password_hash, totp_secret, disabled, sso_issuer,
                 sso_subject, source, created_at, updated_at, version)
               VALUES ($1, $2, $3, $4, $5, $6, $7, 'file', $8, $8, 1)
               ON CONFLICT DO NOTHING RETURNING email`,
              [
                entry.email,
                entry.role,
                entry.passwordHash,
                entry.totpSecret,
                entry.disabled,
                entry.issuer,
                entry.subject,
                at,
              ],
            )
          : [];
        (added ? result.added : result.kept).push(entry.email);
      }
      return result;
    });
  }

  /**
   * The person a single sign-on identity signs in as: the one linked to it, or a new person
   * (source `sso`) with the role the provider's claims give. The role of a person who came this
   * way follows the claims at each sign-in (the provider decides it, not this product, even for
   * the last admin); a person linked by an operator keeps the role set here. An identity nobody
   * is linked to never becomes a person already here with that email.
   */
  async upsertSsoPerson(claims: {
    issuer: unknown;
    subject: unknown;
    email: unknown;
    role: unknown;
  }): Promise<Person> {
    const issuer = issuerOf(claims.issuer);
    const subject = subjectOf(claims.subject);
    const email = emailOf(claims.email);
    const role = roleOf(claims.role);
    const at = new Date(this.clock.now()).toISOString();
    const linked = (tx: SqlQueryable) =>
      tx.query<PersonRow>(
        `SELECT ${PERSON_COLUMNS} FROM person WHERE sso_issuer = $1 AND sso_subject = $2
         FOR UPDATE`,
        [issuer, subject],
      );
    return inTransaction(this.engine, async (tx) => {
      let [row] = await linked(tx);
      if (!row) {
        // A first sign-in of the same identity at once waits here, then finds the person.
        const [created] = await tx.query<PersonRow>(
          `INSERT INTO person (email, role, sso_issuer, sso_subject, source, created_at,
             updated_at, version)
           VALUES ($1, $2, $3, $4, 'sso', $5, $5, 1) ON CONFLICT DO NOTHING
           RETURNING ${PERSON_COLUMNS}`,
          [email, role, issuer, subject, at],
        );
        if (created) {
          // A new person under an email someone had: what was that one's alone goes first, as
          // an invitation's does (`dropLeftBehind`), in the same transaction.
          await this.leftBehind?.(tx, email);
          return personOf(created);
        }
        [row] = await linked(tx);
        if (!row) throw new SsoEmailTakenError(email);
      }
      if (row.source !== 'sso' || row.role === role) return personOf(row);
      const [updated] = await tx.query<PersonRow>(
        `UPDATE person SET role = $2, version = version + 1, updated_at = $3 WHERE email = $1
         RETURNING ${PERSON_COLUMNS}`,
        [row.email, role, at],
      );
      return personOf(updated as PersonRow);
    });
  }

  /** Opens an invitation (see people-invitations.ts); the token is in the answer only. */
  invite(
    email: unknown,
    role: unknown,
    by: unknown,
    ttlMs: number,
    audited?: Audited<Invitation>,
  ): Promise<Invitation> {
    return invite(this.engine, this.clock, { email, role, by, ttlMs }, audited);
  }

  /**
   * Signs the invitee up. `totpSecret`, when given, is the one made for the invitation (whose
   * code was checked) or, when none was, one made by the caller (`pnpm users add`).
   */
  acceptInvitation(
    token: unknown,
    passwordHash: unknown,
    totpSecret?: unknown,
    audited?: Audited<Person>,
  ): Promise<Person> {
    return acceptInvitation(
      this.engine,
      this.clock,
      this.secrets,
      token,
      passwordHash,
      totpSecret,
      audited,
    );
  }

  /** A new authenticator secret for the invitee, sealed to the invitation; shown once. */
  issueInvitationSecret(token: unknown): Promise<{ email: string; secret: string }> {
    return issueInvitationSecret(this.engine, this.clock, this.secrets, token);
  }

  /** The secret last made for the invitation, opened; undefined when none was. */
  invitationSecret(token: unknown): Promise<string | undefined> {
    return invitationSecret(this.engine, this.secrets, token);
  }

  /** Invitations not yet accepted, withdrawn or expired, by email (invitation-queries.ts). */
  openInvitations(): Promise<OpenInvitation[]> {
    return openInvitations(this.engine, this.clock);
  }

  /** The open invitation a token names, refused as its acceptance would be. */
  findInvitation(token: unknown): Promise<InvitationFound> {
    return findInvitation(this.engine, this.clock, token);
  }

  /** Withdraws the email's open invitation (and the person, if they never signed up). */
  withdrawInvitation(email: unknown, audited?: Audited<true>): Promise<boolean> {
    return withdrawInvitation(this.engine, this.clock, email, audited);
  }

  /** A person's new role; refused for the last admin, and for people whose provider sets it. */
  async changeRole(email: unknown, role: unknown, audited?: Audited<Person>): Promise<Person> {
    const to = roleOf(role);
    return this.change(
      emailOf(email),
      async (tx, row, keepAnAdmin) => {
        if (row.source === 'sso') throw new RoleFromProviderError(row.email);
        if (row.role === to) return row;
        if (to !== 'admin') keepAnAdmin('demote');
        return this.update(tx, row.email, 'role = $3', [to]);
      },
      audited,
    );
  }

  /** Disabled people may not sign in, and their sessions end (their version changes). */
  async disable(email: unknown, audited?: Audited<Person>): Promise<Person> {
    return this.change(
      emailOf(email),
      async (tx, row, keepAnAdmin) => {
        if (row.disabled) return row;
        keepAnAdmin('disable');
        return this.update(tx, row.email, 'disabled = true', []);
      },
      audited,
    );
  }

  async enable(email: unknown, audited?: Audited<Person>): Promise<Person> {
    return this.change(
      emailOf(email),
      async (tx, row) => (row.disabled ? this.update(tx, row.email, 'disabled = false', []) : row),
      audited,
    );
  }

  /**
   * Removes the person, revokes their open invitations and, in the same transaction, drops what
   * other features kept as theirs alone (`leftBehind`, wired in src/stores.ts): the removal, its
   * drops and its audit record commit together or not at all. The person as they were, and
   * what was dropped in words.
   */
  async remove(email: unknown, audited?: Audited<RemovedPerson>): Promise<RemovedPerson> {
    const at = new Date(this.clock.now()).toISOString();
    let leftBehind: string[] = [];
    const person = await this.change(
      emailOf(email),
      async (tx, row, keepAnAdmin) => {
        keepAnAdmin('remove');
        await tx.query('DELETE FROM person WHERE email = $1', [row.email]);
        await tx.query(
          `UPDATE person_invitation SET revoked_at = $2, totp_secret = NULL
          WHERE email = $1 AND accepted_at IS NULL AND revoked_at IS NULL`,
          [row.email, at],
        );
        leftBehind = (await this.leftBehind?.(tx, row.email)) ?? [];
        return row;
      },
      audited && ((removed, tx) => audited({ ...removed, leftBehind }, tx)),
    );
    return { ...person, leftBehind };
  }

  /**
   * Drops what other features keep under an email nobody has (a removal whose drops predate
   * them, or an import's leftovers), in its own transaction: an invitation or an operator's
   * `pnpm users add` of the email calls it first. What was dropped, in words; `audited` runs in
   * that transaction when something was (what another replica took from the person in the
   * seconds it still knew them after the removal: a drop no one records is a loss no one sees).
   */
  async dropLeftBehind(email: unknown, audited?: Audited<string[]>): Promise<string[]> {
    const key = emailOf(email);
    return inTransaction(this.engine, async (tx) => {
      const [someone] = await tx.query('SELECT 1 FROM person WHERE email = $1 FOR UPDATE', [key]);
      if (someone) return [];
      const dropped = (await this.leftBehind?.(tx, key)) ?? [];
      return dropped.length === 0 ? dropped : committed(tx, dropped, audited);
    });
  }

  /**
   * Links the person to a single sign-on identity (an operator's `pnpm users link`): signing in
   * there signs in as them, with the role set here. Their sessions end (the version changes).
   * Returns false when they already were linked to it.
   */
  async link(
    email: unknown,
    issuer: unknown,
    subject: unknown,
    audited?: Audited<Person>,
  ): Promise<boolean> {
    const to = { issuer: issuerOf(issuer), subject: subjectOf(subject) };
    let changed = false;
    await this.change(
      emailOf(email),
      async (tx, row) => {
        if (row.sso_issuer === to.issuer && row.sso_subject === to.subject) return row;
        const [other] = await tx.query<{ email: string }>(
          'SELECT email FROM person WHERE sso_issuer = $1 AND sso_subject = $2 AND email <> $3',
          [to.issuer, to.subject, row.email],
        );
        if (other) throw new SsoLinkTakenError(other.email);
        changed = true;
        return this.update(tx, row.email, 'sso_issuer = $3, sso_subject = $4', [
          to.issuer,
          to.subject,
        ]);
      },
      audited,
    );
    return changed;
  }

  /** Takes the person's single sign-on link away; refused when it is their only way in. */
  async unlink(email: unknown, audited?: Audited<Person>): Promise<boolean> {
    let changed = false;
    await this.change(
      emailOf(email),
      async (tx, row) => {
        if (row.sso_issuer === null) return row;
        if (row.password_hash === null) throw new LastSignInWayError(row.email);
        changed = true;
        return this.update(tx, row.email, 'sso_issuer = NULL, sso_subject = NULL', []);
      },
      audited,
    );
    return changed;
  }

  /** When and how the person last signed in. Not a change of the person: the version stays. */
  async recordSignIn(email: unknown, method: unknown): Promise<void> {
    const rows = await this.engine.query(
      `UPDATE person SET last_sign_in_at = $2, last_sign_in_method = $3 WHERE email = $1
       RETURNING email`,
      [emailOf(email), new Date(this.clock.now()).toISOString(), signInMethodOf(method)],
    );
    if (rows.length === 0) throw new PersonNotFoundError(emailOf(email));
  }

  /**
   * Runs `apply` on the person under the locks of their row and every admin's. `apply` calls
   * `keepAnAdmin` before a change that takes the person's admin rights away: refused when they
   * are the last enabled admin who can sign in.
   */
  private async change(
    email: string,
    apply: (
      tx: SqlQueryable,
      row: PersonRow,
      keepAnAdmin: (loss: AdminLoss) => void,
    ) => Promise<PersonRow>,
    /** The change's audit hook, run last in its transaction, with the person as changed. */
    audited?: Audited<Person>,
  ): Promise<Person> {
    return inTransaction(this.engine, async (tx) => {
      const rows = await lockPersonAndAdmins(tx, email);
      const target = rows.find((r) => r.email === email);
      if (!target) throw new PersonNotFoundError(email);
      const row = await apply(tx, target, (loss) => {
        if (isActiveAdmin(target) && rows.filter(isActiveAdmin).length < 2) {
          throw new LastAdminError(email, loss);
        }
      });
      const person = personOf(row);
      await audited?.(person, tx);
      return person;
    });
  }

  /** The person with their TOTP secret opened (sealed again first when it has to be). */
  private async withSecret(row: PersonRow): Promise<Person> {
    const secret = await openPersonSecret(this.engine, this.secrets, row);
    return { ...personOf(row), ...(secret !== undefined ? { totpSecret: secret } : {}) };
  }

  /** `set` (columns from $3 on) plus the version and the time of the change. */
  private async update(
    tx: SqlQueryable,
    email: string,
    set: string,
    values: unknown[],
  ): Promise<PersonRow> {
    const at = new Date(this.clock.now()).toISOString();
    const [row] = await tx.query<PersonRow>(
      `UPDATE person SET ${set}, version = version + 1, updated_at = $2 WHERE email = $1
       RETURNING ${PERSON_COLUMNS}`,
      [email, at, ...values],
    );
    return row as PersonRow;
  }
}

export type { Invitation, InvitationFound, OpenInvitation };
