// A person as the people store keeps them (migration `people`), and the checks every input
// passes before it reaches SQL.
import { type Role, roleSchema } from '@card-console/shared/api/meta';
import { z } from 'zod';
import { isPasswordHash } from '../../platform/users/password-hash';
import { base32SecretSchema } from '../../platform/users/users-file';
import { InvalidPersonInputError } from './people-errors';

export type PersonSource = 'file' | 'invited' | 'sso';
export type SignInMethod = 'password' | 'passkey' | 'sso';

/** What a list of people shows: no credentials, only whether there are any. */
export interface PersonSummary {
  email: string;
  role: Role;
  disabled: boolean;
  source: PersonSource;
  sso?: { issuer: string; subject: string };
  hasPassword: boolean;
  hasTotp: boolean;
  /** Invited and not signed up yet: no password and no single sign-on link. */
  pending: boolean;
  createdAt: string;
  updatedAt: string;
  lastSignIn?: { at: string; method: SignInMethod };
  version: number;
}

/**
 * A person with their credentials, for signing in. Never sent to a browser as it is. The TOTP
 * secret, kept sealed (migration `totp-secrets-sealed`), is opened only by the store's `find`
 * and `findBySso`; what a change answers leaves it out (`hasTotp` says whether there is one).
 */
export interface Person extends PersonSummary {
  passwordHash?: string;
  totpSecret?: string;
}

export interface PersonRow {
  email: string;
  role: Role;
  password_hash: string | null;
  /** An envelope of the secret (platform/security/totp-secret-box.ts), never the secret. */
  totp_secret: string | null;
  /** A secret kept in clear before secrets were sealed: sealed (and emptied) at first use. */
  totp_secret_unsealed: string | null;
  disabled: boolean;
  sso_issuer: string | null;
  sso_subject: string | null;
  source: PersonSource;
  created_at: Date | string;
  updated_at: Date | string;
  last_sign_in_at: Date | string | null;
  last_sign_in_method: SignInMethod | null;
  version: number;
}

export const PERSON_COLUMNS = `email, role, password_hash, totp_secret, totp_secret_unsealed,
  disabled, sso_issuer, sso_subject, source, created_at, updated_at, last_sign_in_at,
  last_sign_in_method, version`;

/** Whom a person's sealed secret belongs to: its envelope opens for this row only. */
export const personSecretOwner = (email: string) => `person:${email}`;

const iso = (value: Date | string) => new Date(value).toISOString();

export function personOf(row: PersonRow): Person {
  return {
    ...summaryOf(row),
    ...(row.password_hash !== null ? { passwordHash: row.password_hash } : {}),
  };
}

export function summaryOf(row: PersonRow): PersonSummary {
  return {
    email: row.email,
    role: row.role,
    disabled: row.disabled,
    source: row.source,
    ...(row.sso_issuer !== null && row.sso_subject !== null
      ? { sso: { issuer: row.sso_issuer, subject: row.sso_subject } }
      : {}),
    hasPassword: row.password_hash !== null,
    hasTotp: row.totp_secret !== null || row.totp_secret_unsealed !== null,
    pending: row.password_hash === null && row.sso_issuer === null,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    ...(row.last_sign_in_at !== null && row.last_sign_in_method !== null
      ? { lastSignIn: { at: iso(row.last_sign_in_at), method: row.last_sign_in_method } }
      : {}),
    version: row.version,
  };
}

/**
 * An admin who counts towards "the product keeps an admin": enabled, and able to sign in (a
 * password or a single sign-on link). An invited admin who has not signed up does not count.
 */
export const isActiveAdmin = (row: PersonRow) =>
  row.role === 'admin' && !row.disabled && (row.password_hash !== null || row.sso_issuer !== null);

const emailSchema = z.string().trim().toLowerCase().pipe(z.email().max(254));

function checked<T>(field: string, schema: z.ZodType<T>, value: unknown): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new InvalidPersonInputError(field, parsed.error.issues[0]?.message);
  return parsed.data;
}

/** The email as the store keys it: trimmed and lower-cased. */
export const emailOf = (value: unknown): string => checked('email', emailSchema, value);
export const roleOf = (value: unknown): Role => checked('role', roleSchema, value);
export const totpSecretOf = (value: unknown): string =>
  checked('totpSecret', base32SecretSchema, value);
export const passwordHashOf = (value: unknown): string =>
  checked('passwordHash', z.string().refine(isPasswordHash, 'not an encoded scrypt hash'), value);
export const signInMethodOf = (value: unknown): SignInMethod =>
  checked('method', z.enum(['password', 'passkey', 'sso']), value);

/** Issuers compare as URLs do: a trailing slash changes nothing (as the users file's links). */
export const issuerOf = (value: unknown): string =>
  checked('issuer', z.url({ protocol: /^https?$/ }).max(2048), value).replace(/\/+$/, '');
export const subjectOf = (value: unknown): string =>
  checked(
    'subject',
    z
      .string()
      .min(1)
      .max(255)
      .regex(/^[\x21-\x7e]+$/),
    value,
  );
