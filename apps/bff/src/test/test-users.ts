import { join } from 'node:path';
import type { Role } from '@card-console/shared/api/meta';
import { addUser } from '../cli/add-user';
import { demoAccounts, demoPassword } from '../platform/users/demo-accounts';
import type { ScryptParams } from '../platform/users/password-hash';
import { type User, UserDirectory } from '../platform/users/user-directory';

export interface TestCredentials {
  email: string;
  password: string;
  totpSecret?: string;
}

/**
 * The tests' hashing cost: scrypt as the product runs it, at a 64th of the demo's memory (16 MiB →
 * 1 MiB, ~37 ms → ~2 ms a hash here). The harness signs in ~10,000 times a run; at the demo's cost
 * that alone was minutes of CI. What the cost itself must do is tested with the product's
 * parameters (password-hash.test.ts, user-directory.test.ts).
 */
export const testScrypt: ScryptParams = { N: 2 ** 10, r: 8, p: 1 };

/** Demo mode: the built-in accounts. Production: a users file written by the CLI's core. */
export async function buildTestUsers(
  mode: 'demo' | 'production',
  dataDir: string,
  scrypt: ScryptParams = testScrypt,
) {
  if (mode === 'demo') {
    const credentials = Object.fromEntries(
      demoAccounts.map((a) => [
        a.role,
        { email: a.email, password: demoPassword, totpSecret: a.totpSecret },
      ]),
    ) as Record<Role, TestCredentials>;
    return {
      users: await UserDirectory.demo({ scrypt }),
      credentials,
      usersFile: undefined,
    };
  }
  const usersFile = join(dataDir, 'users.json');
  const password = 'correct horse battery staple';
  await addUser({
    file: usersFile,
    email: 'finance@example.test',
    role: 'finance',
    password,
    scrypt,
  });
  const admin = await addUser({
    file: usersFile,
    email: 'admin@example.test',
    role: 'admin',
    password,
    scrypt,
  });
  const totpSecret = new URL(admin.otpauthUri ?? '').searchParams.get('secret') ?? '';
  const credentials: Record<Role, TestCredentials> = {
    finance: { email: 'finance@example.test', password },
    admin: { email: 'admin@example.test', password, totpSecret },
  };
  return { users: await UserDirectory.fromFile(usersFile), credentials, usersFile };
}

/**
 * A directory holding exactly `users`, as given: none of the users file's checks (a record that
 * slipped by them, say). Unknown emails are checked against a dummy hash of the same (test) cost.
 */
export async function directoryOf(users: User[]): Promise<UserDirectory> {
  const directory = await UserDirectory.demo({ scrypt: testScrypt });
  directory.replaceUsers(users);
  return directory;
}
