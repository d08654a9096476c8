// The cores of `pnpm users` when it acts on the people store (no --file): the same commands
// as for a users file, applied where the running BFF reads people, so they take effect at once
// (a disabled or removed person's sessions end at their next request). No TTY, no process
// globals, so they can be tested against an engine directly.
import type { Role } from '@card-console/shared/api/meta';
import { generateSecret } from 'otplib';
import { PeopleStoreError } from '../features/people/people-errors';
import type { PeopleStore } from '../features/people/people-store';
import { otpauthUri } from '../platform/security/totp';
import { isDemoEmail } from '../platform/users/demo-accounts';
import { hashPassword, productionScrypt, type ScryptParams } from '../platform/users/password-hash';

/**
 * Who a person added here is recorded as invited by (`invited_by` holds an email): the
 * operator's command, under a name no mailbox has (.invalid is reserved for that).
 */
const OPERATOR = 'pnpm-users@card-console.invalid';

/** A store refusal as a sentence naming the person (never a hash or a token). */
function refusal(email: string, error: unknown): Error {
  if (error instanceof PeopleStoreError) return new Error(`${email}: ${error.message}`);
  return error instanceof Error ? error : new Error(String(error));
}

async function named<T>(email: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw refusal(email, error);
  }
}

/** Everyone, one line each: email, role, state, how they came, single sign-on link. */
export async function listPeople(store: PeopleStore): Promise<string[]> {
  const people = await store.list();
  return people.map((p) =>
    [
      p.email,
      p.role,
      p.disabled ? 'disabled' : p.pending ? 'invited' : 'active',
      p.source,
      ...(p.sso ? [`sso ${p.sso.subject} at ${p.sso.issuer}`] : []),
    ].join('\t'),
  );
}

/**
 * Adds a new person with a password (an admin also gets a TOTP secret, returned as the URI to
 * add to an authenticator app). People already here are changed on the People screen or with
 * the other commands; this never overwrites one.
 */
export async function addPerson(
  store: PeopleStore,
  input: { email: string; role: Role; password: string; scrypt?: ScryptParams },
): Promise<{ otpauthUri?: string }> {
  const email = input.email.trim().toLowerCase();
  if (isDemoEmail(email)) throw new Error('demo accounts cannot be added');
  if (input.password.length < 12) throw new Error('the password must be at least 12 characters');
  if (input.password.length > 256) throw new Error('the password must be at most 256 characters');
  const passwordHash = await hashPassword(input.password, input.scrypt ?? productionScrypt);
  const totpSecret = input.role === 'admin' ? generateSecret() : undefined;
  return named(email, async () => {
    if (await store.find(email)) throw new Error(`${email} is already in Card Console`);
    // An invitation accepted at once: the store's one way of adding a person with a password.
    const { token } = await store.invite(email, input.role, OPERATOR, 60_000);
    await store.acceptInvitation(token, passwordHash, totpSecret);
    return totpSecret ? { otpauthUri: otpauthUri(email, totpSecret) } : {};
  });
}

export async function removePerson(store: PeopleStore, email: string): Promise<void> {
  await named(email, () => store.remove(email));
}

/** Returns false when the person already was in that state. */
export async function setPersonDisabled(
  store: PeopleStore,
  email: string,
  disabled: boolean,
): Promise<boolean> {
  return named(email, async () => {
    const before = await store.find(email);
    if (before && before.disabled === disabled) return false;
    await (disabled ? store.disable(email) : store.enable(email));
    return true;
  });
}

export function linkPerson(
  store: PeopleStore,
  input: { email: string; issuer: string; subject: string },
): Promise<boolean> {
  return named(input.email, () => store.link(input.email, input.issuer, input.subject));
}

export function unlinkPerson(store: PeopleStore, email: string): Promise<boolean> {
  return named(email, () => store.unlink(email));
}
