// A users file (`USERS_FILE`) for the product in production mode, written as `pnpm users` writes
// one: each person's password hashed with scrypt, in a folder of its own under the run's scratch
// folder (build-once.ts), which goes when the run ends.
import { randomBytes, scryptSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';

export function scryptHash(secret: string): string {
  const salt = randomBytes(16);
  const N = 2 ** 14;
  const hash = scryptSync(secret.normalize('NFKC'), salt, 32, { N, r: 8, p: 1 });
  return ['scrypt', N, 8, 1, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

/** Writes `people` (each with `passwordHash`, or a `password` hashed here) and returns the path. */
export function writeUsersFile(
  people: ({ email: string; role: string; password?: string } & Record<string, unknown>)[],
): string {
  const file = join(mkdtempSync(join(inject('scratchDir'), 'users-')), 'users.json');
  const entries = people.map(({ password, ...person }) =>
    password === undefined ? person : { ...person, passwordHash: scryptHash(password) },
  );
  writeFileSync(file, JSON.stringify(entries));
  return file;
}
