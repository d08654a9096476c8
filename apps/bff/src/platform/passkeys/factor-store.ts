import { z } from 'zod';

/** One enrolled WebAuthn credential. */
export interface StoredPasskey {
  /** WebAuthn credential id, base64url. */
  id: string;
  /** COSE public key, base64url. */
  publicKey: string;
  /** Signature counter. */
  counter: number;
  transports?: string[];
  name: string;
  /** Unix ms. */
  createdAt: number;
  lastUsedAt?: number;
}

/** A person's second factors beyond the TOTP secret in the users file. */
export interface PersonFactors {
  /** Oldest first (by createdAt). */
  passkeys: StoredPasskey[];
  /** The person turned TOTP off: passkeys are then their only second factor. */
  totpDisabled: boolean;
  /**
   * A TOTP secret the person set up themselves on Security, sealed (totp-secret-box.ts, owner
   * `ownTotpSecretOwner(email)`). When present it replaces any secret in the users file or people
   * store for sign-in and step-up.
   */
  totpSecret?: string;
}

/** Whom a person's own TOTP secret is sealed for: an envelope copied to another person does not open. */
export const ownTotpSecretOwner = (email: string): string => `own-totp:${email}`;

/** A sealed secret as stored (an envelope of totp-secret-box.ts; never a secret in clear). */
export const sealedTotpSecretSchema = z
  .string()
  .max(700)
  .regex(/^v1:[A-Za-z0-9_-]+(:[A-Za-z0-9_-]+){3}$/, 'must be a sealed TOTP secret');

export const MAX_PASSKEYS_PER_PERSON = 10;

/**
 * A change's audit hook (platform/audit/audited-change.ts): run once the store has decided to
 * make the change, right before writing it; throwing leaves everything as it was. A store that
 * decides atomically elsewhere (in one SQL statement) runs it after a dry run of that decision, and
 * may then still answer a refusal: the caller takes the record back (`auditedChange`'s
 * `notCommitted`).
 */
export type BeforeWrite = ((outcome: string) => Promise<void>) | undefined;

/**
 * Where passkeys and the TOTP-off choice are kept, by lower-cased email. Every conditional
 * change is atomic, so two requests at once can never leave a person with TOTP off and no
 * passkey, nor enrol one credential twice or an eleventh passkey.
 */
export interface FactorStore {
  /** Empty when unknown. */
  get(email: string): Promise<PersonFactors>;
  /** `duplicate`: this credential id is already enrolled by anyone. */
  addPasskey(
    email: string,
    passkey: StoredPasskey,
    audited?: BeforeWrite,
  ): Promise<'added' | 'duplicate' | 'too_many'>;
  /**
   * The passkey as renamed; undefined when the person has no such passkey. `audited` runs only
   * when the name changes (a rename to the name it has writes nothing), handed the name the
   * passkey had, read in the rename's own write (two renames at once each hear their own).
   */
  renamePasskey(
    email: string,
    id: string,
    name: string,
    audited?: BeforeWrite,
  ): Promise<StoredPasskey | undefined>;
  /** Atomic: refuses to remove the last passkey while TOTP is off (the person would be left with no second factor). */
  removePasskey(
    email: string,
    id: string,
    audited?: BeforeWrite,
  ): Promise<'removed' | 'not_found' | 'last_factor'>;
  /**
   * Atomic with removePasskey: turning TOTP off needs at least one passkey. `unchanged` (and no
   * `audited` call) when it already was as asked: of two switches at once, one is the change.
   */
  setTotpDisabled(
    email: string,
    disabled: boolean,
    audited?: BeforeWrite,
  ): Promise<'ok' | 'unchanged' | 'no_passkey'>;
  /**
   * Keeps `sealed` as the person's own TOTP secret, replacing any older one, and turns TOTP on
   * (a new secret confirmed with a code is one the person means to use).
   */
  setTotpSecret(email: string, sealed: string, audited?: BeforeWrite): Promise<'ok'>;
  /**
   * The same secret sealed again (under the current key, after a rotation): kept only while
   * `from` is still the stored envelope, so a secret replaced meanwhile is never overwritten, and
   * TOTP on or off is left as it is. False when `from` was no longer there. Not audited: the
   * person's factors do not change.
   */
  resealTotpSecret(email: string, from: string, to: string): Promise<boolean>;
  /** After a verified use: stores the new counter (never lowers it) and lastUsedAt. False when the passkey is gone. */
  recordUse(email: string, id: string, counter: number, at: number): Promise<boolean>;
  /**
   * Drops every factor of the email (passkeys, their own TOTP secret, TOTP off): the person was
   * removed, and whoever has that email next (invited again, or through single sign-on) starts
   * with none. The number of passkeys dropped. Not audited here: the removal is.
   */
  forget(email: string): Promise<number>;
}

const base64url = z.string().regex(/^[A-Za-z0-9_-]+$/, 'must be base64url');
const unixMs = z.number().int().nonnegative();

/** How a stored passkey is checked when read back (from the file or from PostgreSQL). */
export const storedPasskeySchema = z.strictObject({
  id: base64url,
  publicKey: base64url,
  counter: z.number().int().nonnegative(),
  transports: z.array(z.string()).optional(),
  name: z.string(),
  createdAt: unixMs,
  lastUsedAt: unixMs.optional(),
}) satisfies z.ZodType<StoredPasskey>;

/**
 * The passkey as a store keeps it, or a TypeError for one it must not keep (a programming
 * error, not the person's). An empty `transports` is left out: it means the same as none.
 */
export function storablePasskey(passkey: StoredPasskey): StoredPasskey {
  const parsed = storedPasskeySchema.safeParse(passkey);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new TypeError(`not a storable passkey: ${issue?.path.join('.')} ${issue?.message}`);
  }
  const { transports, ...rest } = parsed.data;
  return transports?.length ? { ...rest, transports } : rest;
}

/** The sealed secret as a store keeps it, or a TypeError (a programming error: never a secret in clear). */
export function storableTotpSecret(sealed: string): string {
  if (!sealedTotpSecretSchema.safeParse(sealed).success) {
    throw new TypeError('not a sealed TOTP secret');
  }
  return sealed;
}

/** A RangeError unless the counter and time of a passkey use are whole and not negative. */
export function checkPasskeyUse(counter: number, at: number): void {
  if (!Number.isSafeInteger(counter) || counter < 0 || !Number.isSafeInteger(at) || at < 0) {
    throw new RangeError('a passkey use needs a whole, non-negative counter and time');
  }
}

/** Oldest first, by createdAt, then by id so the order is stable. */
export const oldestFirst = (x: StoredPasskey, y: StoredPasskey): number =>
  x.createdAt - y.createdAt || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0);

export const noFactors = (): PersonFactors => ({ passkeys: [], totpDisabled: false });
