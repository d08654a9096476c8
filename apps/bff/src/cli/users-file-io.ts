// Reading and writing the users file for `pnpm users`: checked on the way in and out, and
// replaced in one rename so neither a reader nor the running BFF sees half a file.
import { randomBytes } from 'node:crypto';
import { chmod, chown, mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { type UserEntry, usersFileSchema } from '../platform/users/users-file';

/** The file's users; none when it does not exist yet. */
export async function readUsers(file: string): Promise<UserEntry[]> {
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

/**
 * Writes beside the target and renames over it, so a reader never sees half a file. The new
 * file keeps the old one's owner and group: an operator editing it with sudo must not leave it
 * unreadable to the service user the BFF runs as (mode 0600 stays: only that owner reads it).
 */
export async function writeUsersAtomically(file: string, users: UserEntry[]): Promise<void> {
  usersFileSchema.parse(users);
  await mkdir(dirname(file), { recursive: true });
  const owner = await stat(file).catch(() => undefined);
  const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(temp, `${JSON.stringify(users, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  await chmod(temp, 0o600);
  if (owner) await chown(temp, owner.uid, owner.gid);
  await rename(temp, file);
}
