// The cores of `pnpm users` when it acts on the people store (no --file): the same commands
// as for a users file, applied where the running BFF reads people, so they take effect at once
// (a disabled or removed person's sessions end at their next request). Each change is audited
// as the People screen's are, by the operator who ran it (`os:<user>@<host>`): its record is
// appended inside the change's transaction, so a trail that cannot take it leaves the person
// as they were. No TTY, no process globals, so they can be tested against an engine directly.
import { hostname, userInfo } from 'node:os';
import type { AuditAction } from '@card-console/shared/api/audit-enums';
import type { Role } from '@card-console/shared/api/meta';
import { generateSecret } from 'otplib';
import type { Logger } from 'pino';
import { PeopleStoreError } from '../features/people/people-errors';
import { leftoversDetail, removedDetail } from '../features/people/people-service';
import type { PeopleStore, RemovedPerson } from '../features/people/people-store';
import { emailOf, type Person } from '../features/people/person';
import type { AuditStore } from '../platform/audit/audit-store';
import {
  type AnyBeforeCommit,
  AuditUnavailableError,
  auditedChange,
} from '../platform/audit/audited-change';
import type { FactorStore } from '../platform/passkeys/factor-store';
import { newRequestId } from '../platform/request-ids';
import { otpauthUri } from '../platform/security/totp';
import { isDemoEmail } from '../platform/users/demo-accounts';
import { hashPassword, productionScrypt, type ScryptParams } from '../platform/users/password-hash';

/**
 * Who a person added here is recorded as invited by (`invited_by` holds an email): the
 * operator's command, under a name no mailbox has (.invalid is reserved for that).
 */
const OPERATOR = 'pnpm-users@card-console.invalid';

/** The trail the commands' records go to, and who ran them. */
export interface CommandTrail {
  audit: AuditStore;
  /** The operator: `os:<user>@<host>` (operatorActor). */
  actor: string;
  logger: Pick<Logger, 'error'>;
}

/** The people store and the trail each change is recorded in. */
export interface PeopleCommands {
  store: PeopleStore;
  trail: CommandTrail;
  /**
   * The second factors the server keeps by email (its PostgreSQL, or the file in DATA_DIR): a
   * removed person's are dropped, so whoever is given the email next never signs in with them.
   */
  factors?: Pick<FactorStore, 'forget'> | undefined;
}

/** The operator as the trail names them: the OS account that ran the command, and its host. */
export function operatorActor(user = userInfo().username, host = hostname()): string {
  return `os:${user}@${host}`.toLowerCase();
}

/** A store refusal as a sentence naming the person (never a hash or a token). */
function refusal(email: string, error: unknown): Error {
  if (error instanceof PeopleStoreError) return new Error(`${email}: ${error.message}`);
  return error instanceof Error ? error : new Error(String(error));
}

/**
 * Runs one change of a person with its record: `change` hands the store the hook that appends
 * the record inside its transaction. A refusal (the last admin, no such person) or a failure is
 * recorded too, as the People screen records them, best effort: the person was not changed.
 */
async function recorded<R, H = Person>(
  { trail }: PeopleCommands,
  spec: { action: AuditAction; target: string; attempt: string },
  change: (beforeCommit: AnyBeforeCommit) => Promise<R>,
  /** From the person as the store hands them to the change's hook (`H`). */
  detail: (person: H) => string,
): Promise<R> {
  const base = {
    actor: trail.actor,
    action: spec.action,
    target: spec.target,
    requestId: newRequestId(),
  };
  try {
    return await auditedChange<R, unknown>(trail, change, (person) => [
      { ...base, outcome: 'success', detail: detail(person as unknown as H) },
    ]);
  } catch (error) {
    if (error instanceof AuditUnavailableError) {
      throw new Error(
        `${spec.target}: nothing was changed: the audit trail could not record it (${(error.cause as Error)?.message ?? 'unavailable'})`,
      );
    }
    const rule = error instanceof PeopleStoreError;
    await trail.audit
      .append({
        ...base,
        outcome: rule ? 'denied' : 'failed',
        detail: `${rule ? error.code : 'internal_error'}: ${spec.attempt}`,
      })
      .catch((lost: unknown) =>
        trail.logger.error(
          { err: lost, action: spec.action },
          'audit record of a refused change could not be written',
        ),
      );
    throw refusal(spec.target, error);
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
  on: PeopleCommands,
  input: { email: string; role: Role; password: string; scrypt?: ScryptParams },
): Promise<{ otpauthUri?: string }> {
  const { store } = on;
  const email = input.email.trim().toLowerCase();
  if (isDemoEmail(email)) throw new Error('demo accounts cannot be added');
  if (input.password.length < 12) throw new Error('the password must be at least 12 characters');
  if (input.password.length > 256) throw new Error('the password must be at most 256 characters');
  const passwordHash = await hashPassword(input.password, input.scrypt ?? productionScrypt);
  const totpSecret = input.role === 'admin' ? generateSecret() : undefined;
  if (await store.find(email)) throw new Error(`${email} is already in Card Console`);
  // Nobody has the email: second factors kept under it are a removed person's (their drop
  // failed, or an older build removed them), never the new person's to sign in with.
  await on.factors?.forget(email);
  // And what other features kept under it (a receipt inbox, alert rules), recorded.
  await auditedChange(
    on.trail,
    (audited) => store.dropLeftBehind(email, audited),
    (dropped) => [
      {
        actor: on.trail.actor,
        action: 'person.remove',
        target: email,
        requestId: newRequestId(),
        outcome: 'success',
        detail: leftoversDetail(dropped),
      },
    ],
  );
  // An invitation accepted at once: the store's one way of adding a person with a password.
  // Its record is the acceptance's; an acceptance that cannot be recorded takes the
  // invitation back (it would lapse within a minute anyway).
  const { token } = await store.invite(email, input.role, OPERATOR, 60_000);
  try {
    await recorded(
      on,
      { action: 'person.add', target: email, attempt: `add as ${input.role}` },
      (hook) => store.acceptInvitation(token, passwordHash, totpSecret, hook),
      (person) =>
        `added as ${person.role} with a password${totpSecret ? ' and an authenticator' : ''}`,
    );
  } catch (error) {
    await store.withdrawInvitation(email).catch(() => {});
    throw error;
  }
  return totpSecret ? { otpauthUri: otpauthUri(email, totpSecret) } : {};
}

/**
 * Removes a person, then drops their second factors (another store: a file with one replica, so
 * not in the removal's transaction). A drop that fails leaves the removal standing and says so:
 * adding or inviting the email again drops them first.
 */
export async function removePerson(on: PeopleCommands, email: string): Promise<void> {
  await recorded<RemovedPerson, RemovedPerson>(
    on,
    { action: 'person.remove', target: email, attempt: 'remove' },
    (hook) => on.store.remove(email, hook),
    (was) => removedDetail(was, was.leftBehind),
  );
  try {
    await on.factors?.forget(emailOf(email));
  } catch (error) {
    throw new Error(
      `${email} was removed, but their second factors could not be dropped (${error instanceof Error ? error.message : String(error)}); adding or inviting the email again drops them`,
      { cause: error },
    );
  }
}

/** `state`, and whether the change left the person as they were (their version unchanged). */
const as = (before: Person | undefined, state: string) => (after: Person) =>
  before && after.version === before.version ? `${state} (unchanged)` : state;

/** Returns false when the person already was in that state (recorded as unchanged). */
export async function setPersonDisabled(
  on: PeopleCommands,
  email: string,
  disabled: boolean,
): Promise<boolean> {
  const before = await on.store.find(email);
  const state = disabled ? 'disabled' : 'enabled';
  const after = await recorded(
    on,
    {
      action: disabled ? 'person.disable' : 'person.enable',
      target: email,
      attempt: disabled ? 'disable' : 'enable',
    },
    (hook) => (disabled ? on.store.disable(email, hook) : on.store.enable(email, hook)),
    as(before, state),
  );
  return after.version !== before?.version;
}

/** Returns false when the person already was linked to that identity. */
export async function linkPerson(
  on: PeopleCommands,
  input: { email: string; issuer: string; subject: string },
): Promise<boolean> {
  const before = await on.store.find(input.email);
  return recorded(
    on,
    {
      action: 'person.link',
      target: input.email,
      attempt: `link to ${input.subject} at ${input.issuer}`,
    },
    (hook) => on.store.link(input.email, input.issuer, input.subject, hook),
    (after) =>
      as(
        before,
        `signs in through single sign-on as ${after.sso?.subject} at ${after.sso?.issuer}`,
      )(after),
  );
}

/** Returns false when the person had no single sign-on link. */
export async function unlinkPerson(on: PeopleCommands, email: string): Promise<boolean> {
  const before = await on.store.find(email);
  return recorded(
    on,
    { action: 'person.unlink', target: email, attempt: 'unlink single sign-on' },
    (hook) => on.store.unlink(email, hook),
    as(before, 'no longer linked to single sign-on'),
  );
}
