// The core of `pnpm users add`: no TTY, no process globals, so it can be tested directly.
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Role } from '@card-console/shared/api/meta';
import { generateSecret } from 'otplib';
import { otpauthUri } from '../platform/security/totp';
import { isDemoEmail } from '../platform/users/demo-accounts';
import { hashPassword, productionScrypt, type ScryptParams } from '../platform/users/password-hash';
import { type UserEntry, usersFileSchema } from '../platform/users/users-file';

export interface AddUserInput {
  file: string;
  email: string;
  role: Role;
  password: string;
  /** Tests pass a cheaper cost; real users get the production cost. */
  scrypt?: ScryptParams;
}

export interface AddUserResult {
  created: boolean;
  /** For admins: the new secret's URI to add to an authenticator app. */
  otpauthUri?: string;
}

async function readUsers(file: string): Promise<UserEntry[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const parsed = usersFileSchema.safeParse(JSON.parse(text));
  if (!parsed.success)
    throw new Error(`${file} is not a valid users file: ${parsed.error.issues[0]?.message}`);
  return parsed.data;
}

/** Writes beside the target and renames over it, so a reader never sees half a file. */
export async function writeUsersAtomically(file: string, users: UserEntry[]): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(temp, `${JSON.stringify(users, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  await chmod(temp, 0o600);
  await rename(temp, file);
}

/**
 * Adds a user, or replaces the password (and role) of an existing one. An admin gets a new
 * TOTP secret unless they already have one and stay admin.
 */
export async function addUser(input: AddUserInput): Promise<AddUserResult> {
  const email = input.email.trim().toLowerCase();
  if (isDemoEmail(email)) throw new Error('demo accounts cannot be added to a users file');
  if (input.password.length < 12) throw new Error('the password must be at least 12 characters');
  if (input.password.length > 256) throw new Error('the password must be at most 256 characters');
  const users = await readUsers(input.file);
  const existing = users.find((u) => u.email === email);
  const passwordHash = await hashPassword(input.password, input.scrypt ?? productionScrypt);
  const keepSecret = input.role === 'admin' ? existing?.totpSecret : undefined;
  const totpSecret = input.role === 'admin' ? (keepSecret ?? generateSecret()) : undefined;
  const entry: UserEntry = {
    email,
    role: input.role,
    passwordHash,
    ...(totpSecret ? { totpSecret } : {}),
  };
  const next = existing ? users.map((u) => (u.email === email ? entry : u)) : [...users, entry];
  usersFileSchema.parse(next);
  await writeUsersAtomically(input.file, next);
  return {
    created: !existing,
    ...(totpSecret && totpSecret !== keepSecret
      ? { otpauthUri: otpauthUri(email, totpSecret) }
      : {}),
  };
}
