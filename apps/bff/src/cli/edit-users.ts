// The cores of `pnpm users remove`, `disable` and `enable`: no TTY, no process globals.
import type { UserEntry } from '../platform/users/users-file';
import { readUsers, writeUsersAtomically } from './users-file-io';

export interface EditUserInput {
  file: string;
  email: string;
}

/** The file's users and the one named, or an error saying they are not there. */
async function usersWith(input: EditUserInput): Promise<{ users: UserEntry[]; email: string }> {
  const email = input.email.trim().toLowerCase();
  const users = await readUsers(input.file);
  if (!users.some((u) => u.email === email)) {
    throw new Error(`${email} is not in ${input.file}`);
  }
  return { users, email };
}

/**
 * Takes a person out of the file. The last one cannot go: the BFF refuses a users file with
 * nobody in it and would keep serving the last good one, with them still in it (disable them).
 */
export async function removeUser(input: EditUserInput): Promise<void> {
  const { users, email } = await usersWith(input);
  if (users.length === 1) {
    throw new Error(
      `${email} is the only person in ${input.file}; a users file needs someone: use \`pnpm users disable\` instead`,
    );
  }
  await writeUsersAtomically(
    input.file,
    users.filter((u) => u.email !== email),
  );
}

/** Disables or enables a person; returns false when they already were. */
export async function setUserDisabled(
  input: EditUserInput & { disabled: boolean },
): Promise<boolean> {
  const { users, email } = await usersWith(input);
  const user = users.find((u) => u.email === email) as UserEntry;
  if (Boolean(user.disabled) === input.disabled) return false;
  const { disabled: _was, ...rest } = user;
  const updated: UserEntry = input.disabled ? { ...rest, disabled: true } : rest;
  await writeUsersAtomically(
    input.file,
    users.map((u) => (u.email === email ? updated : u)),
  );
  return true;
}
