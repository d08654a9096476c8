import { readFile } from 'node:fs/promises';
import type { Role } from '@card-console/shared/api/meta';
import { demoAccounts, demoAdminTotpSecret, demoPassword, isDemoEmail } from './demo-accounts';
import {
  demoScrypt,
  hashParams,
  hashPassword,
  productionScrypt,
  verifyPassword,
} from './password-hash';
import { usersFileSchema } from './users-file';

export interface User {
  email: string;
  role: Role;
  passwordHash: string;
  totpSecret?: string;
  /** May not sign in; a session they hold ends at its next request. */
  disabled?: boolean;
}

/**
 * Who may sign in. `pnpm users` edits the file; `watchUsersFile` puts a changed file in
 * place while the BFF runs (`replaceUsers`), so an added person can sign in and a removed,
 * disabled or re-roled one loses their session at its next request (`allowsSession`).
 */
export class UserDirectory {
  private byEmail: Map<string, User>;

  private constructor(
    users: User[],
    /** Verified against for unknown emails so timing doesn't tell which accounts exist. */
    private readonly dummyHash: string,
  ) {
    this.byEmail = new Map(users.map((u) => [u.email, u]));
  }

  static async demo(): Promise<UserDirectory> {
    const users = await Promise.all(
      demoAccounts.map(async (account) => ({
        ...account,
        passwordHash: await hashPassword(demoPassword, demoScrypt),
      })),
    );
    return new UserDirectory(users, await hashPassword('not-a-password', demoScrypt));
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

  /** How many people the directory holds, and how many of them are disabled. */
  counts(): { users: number; disabled: number } {
    let disabled = 0;
    for (const user of this.byEmail.values()) if (user.disabled) disabled++;
    return { users: this.byEmail.size, disabled };
  }

  /**
   * Whether a session signed in as `email` with `role` may go on: the person is still in
   * the file, not disabled, and has the role they signed in with (a changed role means
   * signing in again).
   */
  allowsSession(session: { email: string; role: Role }): boolean {
    const user = this.byEmail.get(session.email);
    return user !== undefined && !user.disabled && user.role === session.role;
  }

  static fromUsers(users: User[], dummyHash: string): UserDirectory {
    return new UserDirectory(users, dummyHash);
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
