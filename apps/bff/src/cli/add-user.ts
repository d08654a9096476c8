// The core of `pnpm users add`: no TTY, no process globals, so it can be tested directly.
import type { Role } from '@card-console/shared/api/meta';
import { generateSecret } from 'otplib';
import { otpauthUri } from '../platform/security/totp';
import { isDemoEmail } from '../platform/users/demo-accounts';
import { hashPassword, productionScrypt, type ScryptParams } from '../platform/users/password-hash';
import type { UserEntry } from '../platform/users/users-file';
import { readUsers, writeUsersAtomically } from './users-file-io';

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
  /** An existing person stays disabled when their password changes (`pnpm users enable`). */
  disabled?: boolean;
  /** For admins: the new secret's URI to add to an authenticator app. */
  otpauthUri?: string;
}

/**
 * Adds a user, or replaces the password (and role) of an existing one. An admin gets a new
 * TOTP secret unless they already have one; anyone keeps the one they have (a second factor is
 * for every role). A disabled person stays disabled.
 */
export async function addUser(input: AddUserInput): Promise<AddUserResult> {
  const email = input.email.trim().toLowerCase();
  if (isDemoEmail(email)) throw new Error('demo accounts cannot be added to a users file');
  if (input.password.length < 12) throw new Error('the password must be at least 12 characters');
  if (input.password.length > 256) throw new Error('the password must be at most 256 characters');
  const users = await readUsers(input.file);
  const existing = users.find((u) => u.email === email);
  const passwordHash = await hashPassword(input.password, input.scrypt ?? productionScrypt);
  // A person keeps the authenticator they have, whatever their role (every role may have one);
  // an admin without one gets a new secret.
  const keepSecret = existing?.totpSecret;
  const totpSecret = keepSecret ?? (input.role === 'admin' ? generateSecret() : undefined);
  const entry: UserEntry = {
    email,
    role: input.role,
    passwordHash,
    ...(totpSecret ? { totpSecret } : {}),
    ...(existing?.disabled ? { disabled: true } : {}),
    ...(existing?.sso ? { sso: existing.sso } : {}),
  };
  const next = existing ? users.map((u) => (u.email === email ? entry : u)) : [...users, entry];
  await writeUsersAtomically(input.file, next);
  return {
    created: !existing,
    ...(existing?.disabled ? { disabled: true } : {}),
    ...(totpSecret && totpSecret !== keepSecret
      ? { otpauthUri: otpauthUri(email, totpSecret) }
      : {}),
  };
}
