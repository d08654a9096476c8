import { readFile } from 'node:fs/promises';
import type { Role } from '@card-console/shared/api/meta';
import {
  demoAccounts,
  demoAdminTotpSecret,
  demoPassword,
  demoSubject,
  isDemoEmail,
} from './demo-accounts';
import {
  demoScrypt,
  hashParams,
  hashPassword,
  productionScrypt,
  type ScryptParams,
  verifyPassword,
} from './password-hash';
import type { PersonDirectory, SessionPerson } from './person-directory';
import { usersFileSchema } from './users-file';

export type { SessionPerson } from './person-directory';

export interface User {
  email: string;
  role: Role;
  passwordHash: string;
  totpSecret?: string;
  /** May not sign in; a session they hold ends at its next request. */
  disabled?: boolean;
  /** The single sign-on identity an operator linked to this person (`pnpm users link`). */
  sso?: { issuer: string; subject: string };
}

/**
 * Who may sign in. `pnpm users` edits the file; `watchUsersFile` puts a changed file in
 * place while the BFF runs (`replaceUsers`), so an added person can sign in and a removed,
 * disabled or re-roled one loses their session at its next request (`allowsSession`).
 */
export class UserDirectory implements PersonDirectory {
  private byEmail: Map<string, User>;

  private constructor(
    users: User[],
    /** Verified against for unknown emails so timing doesn't tell which accounts exist. */
    private readonly dummyHash: string,
  ) {
    this.byEmail = new Map(users.map((u) => [u.email, u]));
  }

  /**
   * The demo accounts; with `ssoIssuer` (the demo's own provider) each is linked to its demo
   * provider person, as an operator links people with `pnpm users link`. `scrypt` is the hashing
   * cost (the tests' harness passes a cheaper one: it signs in thousands of times a run).
   */
  static async demo(
    options: { ssoIssuer?: string; scrypt?: ScryptParams } = {},
  ): Promise<UserDirectory> {
    const { ssoIssuer, scrypt = demoScrypt } = options;
    const users = await Promise.all(
      demoAccounts.map(async (account) => ({
        ...account,
        passwordHash: await hashPassword(demoPassword, scrypt),
        ...(ssoIssuer ? { sso: { issuer: ssoIssuer, subject: demoSubject(account.role) } } : {}),
      })),
    );
    return new UserDirectory(users, await hashPassword('not-a-password', scrypt));
  }

  /** Nobody signs in with a password (single sign-on only: no USERS_FILE). */
  static async none(): Promise<UserDirectory> {
    return new UserDirectory([], await hashPassword('not-a-password', productionScrypt));
  }

  /** Production users. Refuses demo accounts and anything the schema rejects. */
  static async fromFile(path: string): Promise<UserDirectory> {
    const users = await readUsersFile(path);
    const first = users[0];
    const params = (first && hashParams(first.passwordHash)) ?? productionScrypt;
    return new UserDirectory(users, await hashPassword('not-a-password', params));
  }

  /** Puts a newly read users file in place of the current one (see `watchUsersFile`). */
  replaceUsers(users: User[]): void {
    this.byEmail = new Map(users.map((u) => [u.email, u]));
  }

  /** Everyone the directory holds, with their credentials (what start-up imports). */
  users(): User[] {
    return [...this.byEmail.values()];
  }

  /** How many people the directory holds, and how many of them are disabled. */
  counts(): { users: number; disabled: number } {
    let disabled = 0;
    for (const user of this.byEmail.values()) if (user.disabled) disabled++;
    return { users: this.byEmail.size, disabled };
  }

  /**
   * Whether a session may go on. A password or passkey session, and a single sign-on session
   * of a linked person: the person is still in the file, not disabled, has the role they signed
   * in with (a changed role means signing in again), and (single sign-on) is still linked to
   * that subject. A single sign-on session of anyone else: as long as no one in the file has
   * that email, since it may never act under a file person's name.
   */
  allowsSession(session: SessionPerson): boolean {
    const user = this.byEmail.get(session.email);
    const sso = session.method === 'sso';
    if (sso && !session.sso?.linked) return user === undefined;
    if (user === undefined || user.disabled || user.role !== session.role) return false;
    return !sso || user.sso?.subject === session.sso?.sub;
  }

  /** The person an operator linked to this provider's subject, disabled or not. */
  findLinked(issuer: string, subject: string): User | undefined {
    for (const user of this.byEmail.values()) {
      if (user.sso?.subject === subject && sameIssuer(user.sso.issuer, issuer)) return user;
    }
    return undefined;
  }

  /** Everyone who may sign in (not disabled), by email: who a team alert goes to. */
  emails(): string[] {
    return [...this.byEmail.values()].filter((u) => !u.disabled).map((u) => u.email);
  }

  find(email: string): User | undefined {
    return this.byEmail.get(email.toLowerCase());
  }

  /**
   * The user when the password matches and they are not disabled; always does one hash's
   * worth of work.
   */
  async authenticate(email: string, password: string): Promise<User | undefined> {
    const user = this.find(email);
    const ok = await verifyPassword(password, user?.passwordHash ?? this.dummyHash);
    return user && ok && !user.disabled ? user : undefined;
  }
}

/** Issuers compare as URLs do, so a trailing slash in the file or the token changes nothing. */
function sameIssuer(a: string, b: string): boolean {
  const strip = (s: string) => s.replace(/\/+$/, '');
  return strip(a) === strip(b);
}

/**
 * Reads and checks a production users file. The messages name USERS_FILE and never quote
 * the file (JSON.parse's own message would show a piece of it: a hash or a TOTP secret).
 */
export async function readUsersFile(path: string): Promise<User[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new Error(`USERS_FILE: cannot read ${path} (${(error as NodeJS.ErrnoException).code})`);
  }
  return parseUsersFile(text, path);
}

/** `readUsersFile` for text already read from `path`. */
export function parseUsersFile(text: string, path: string): User[] {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    const at = /at position \d+/.exec((error as Error).message)?.[0];
    throw new Error(
      `USERS_FILE: cannot read ${path} as JSON (not valid JSON${at ? ` ${at}` : ''})`,
    );
  }
  const parsed = usersFileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`USERS_FILE: ${issue?.path.join('.')}: ${issue?.message}`);
  }
  if (parsed.data.length === 0)
    throw new Error('USERS_FILE: holds no users; add one with `pnpm users add`');
  for (const user of parsed.data) {
    if (isDemoEmail(user.email) || user.totpSecret === demoAdminTotpSecret) {
      throw new Error(
        `USERS_FILE: ${user.email} is a demo account, which production never accepts`,
      );
    }
  }
  return parsed.data;
}
