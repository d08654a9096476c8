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
}

/** Who may sign in. Read-only at run time; `pnpm users add` edits the file offline. */
export class UserDirectory {
  private readonly byEmail: Map<string, User>;

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

  /** Production users. Refuses demo accounts and anything the schema rejects. */
  static async fromFile(path: string): Promise<UserDirectory> {
    let raw: unknown;
    try {
      raw = JSON.parse(await readFile(path, 'utf8'));
    } catch (error) {
      throw new Error(`USERS_FILE: cannot read ${path} as JSON (${(error as Error).message})`);
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
    const first = parsed.data[0];
    const params = (first && hashParams(first.passwordHash)) ?? productionScrypt;
    return new UserDirectory(parsed.data, await hashPassword('not-a-password', params));
  }

  static fromUsers(users: User[], dummyHash: string): UserDirectory {
    return new UserDirectory(users, dummyHash);
  }

  find(email: string): User | undefined {
    return this.byEmail.get(email.toLowerCase());
  }

  /** The user when the password matches; always does one hash's worth of work. */
  async authenticate(email: string, password: string): Promise<User | undefined> {
    const user = this.find(email);
    const ok = await verifyPassword(password, user?.passwordHash ?? this.dummyHash);
    return user && ok ? user : undefined;
  }
}
