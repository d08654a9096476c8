// The cores of `pnpm users remove`, `disable`, `enable`, `link` and `unlink`: no TTY, no
// process globals.
import { ssoLinkSchema, type UserEntry } from '../platform/users/users-file';
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

/**
 * Links a person to a single sign-on identity: from then on, a sign-in at that provider as that
 * subject is this person (their role, factors and audit name), and nothing else at the provider
 * is. The subject is the provider's `sub` for them, as a refused sign-in's audit record names
 * it. Another person linked to the same identity loses the link. Returns false when unchanged.
 */
export async function linkUser(
  input: EditUserInput & { issuer: string; subject: string },
): Promise<boolean> {
  const { users, email } = await usersWith(input);
  const parsed = ssoLinkSchema.safeParse({ issuer: input.issuer, subject: input.subject });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`--${issue?.path.join('.')}: ${issue?.message}`);
  }
  const link = parsed.data;
  const same = (u: UserEntry) => u.sso?.issuer === link.issuer && u.sso.subject === link.subject;
  const user = users.find((u) => u.email === email) as UserEntry;
  if (same(user) && users.filter(same).length === 1) return false;
  await writeUsersAtomically(
    input.file,
    users.map((u) => (u.email === email ? { ...u, sso: link } : same(u) ? withoutLink(u) : u)),
  );
  return true;
}

/** Takes a person's single sign-on link away; returns false when they had none. */
export async function unlinkUser(input: EditUserInput): Promise<boolean> {
  const { users, email } = await usersWith(input);
  if (!users.some((u) => u.email === email && u.sso)) return false;
  await writeUsersAtomically(
    input.file,
    users.map((u) => (u.email === email ? withoutLink(u) : u)),
  );
  return true;
}

function withoutLink(user: UserEntry): UserEntry {
  const { sso: _link, ...rest } = user;
  return rest;
}
