// Second-factor (TOTP) secrets at rest: AES-256-GCM under a key from the environment
// (TOTP_ENCRYPTION_KEY), kept as `v1:<key id>:<iv>:<ciphertext>:<tag>` (base64url parts). The
// associated data names whom the secret belongs to (a person's email, an invitation), so an
// envelope copied to another row does not open there. Keys named in
// TOTP_ENCRYPTION_KEYS_PREVIOUS still open what they sealed; callers then seal it again with the
// current key (`open` says when).
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { AppError } from '../../core/app-error';

/** The current key and those it replaced, 32 bytes each. */
export interface TotpKeys {
  current: Buffer;
  previous: readonly Buffer[];
}

const KEY_BYTES = 32;
const IV_BYTES = 12;
const ENVELOPE =
  /^v1:([A-Za-z0-9_-]{8}):([A-Za-z0-9_-]{16}):([A-Za-z0-9_-]{1,512}):([A-Za-z0-9_-]{22})$/;

/** Stable, and says nothing of the key: the first 48 bits of a hash of it. */
export const totpKeyId = (key: Buffer): string =>
  createHash('sha256')
    .update('card-console totp key id\0')
    .update(key)
    .digest('base64url')
    .slice(0, 8);

/** Whether a stored value is an envelope (a base32 secret never holds a colon). */
export const isSealedSecret = (value: string): boolean => value.startsWith('v1:');

/** No key configured: nothing can be sealed or opened. */
export class TotpKeyMissingError extends Error {
  constructor() {
    super(
      'TOTP_ENCRYPTION_KEY is not set: second-factor secrets are stored encrypted with it (docs/operations.md#second-factor-secrets)',
    );
    this.name = 'TotpKeyMissingError';
  }
}

/** An envelope no key held opens: sealed with a key since dropped, or altered, or moved. */
export class TotpSecretUnreadableError extends Error {
  constructor(
    /** The key the envelope names, when it names one. */
    readonly keyId: string | undefined,
    reason: string,
  ) {
    super(reason);
    this.name = 'TotpSecretUnreadableError';
  }
}

/**
 * What a person is answered when their secret cannot be opened (503, the cause kept for the log),
 * or undefined for any other error: their second factor cannot be checked, and a wrong code is not
 * what it is.
 */
export function secondFactorUnavailable(error: unknown): AppError | undefined {
  if (!(error instanceof TotpSecretUnreadableError || error instanceof TotpKeyMissingError)) {
    return undefined;
  }
  return new AppError(
    503,
    'second_factor_unavailable',
    "Your second factor cannot be checked: Card Console's TOTP encryption key does not open it. Tell whoever runs Card Console (its log names the key).",
    // Every 503 says when to ask again (docs/operations/limits.md): once the key is set right.
    { cause: error, retryAfterSeconds: 60 },
  );
}

export class TotpSecretBox {
  private readonly keys = new Map<string, Buffer>();
  /** The key new envelopes are sealed with; undefined when no key is configured. */
  readonly currentKeyId: string | undefined;

  constructor(keys: TotpKeys | undefined) {
    if (!keys) return;
    for (const key of [keys.current, ...keys.previous]) {
      if (key.length !== KEY_BYTES) throw new Error('a TOTP encryption key is 32 bytes');
      this.keys.set(totpKeyId(key), key);
    }
    this.currentKeyId = totpKeyId(keys.current);
  }

  /** Seals `secret` for `owner` (such as `person:<email>`) with the current key. */
  seal(owner: string, secret: string): string {
    const id = this.currentKeyId;
    if (id === undefined) throw new TotpKeyMissingError();
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(id) as Buffer, iv);
    cipher.setAAD(associatedData(id, owner));
    const body = Buffer.concat([cipher.update(secret), cipher.final()]);
    const parts = [iv, body, cipher.getAuthTag()].map((b) => b.toString('base64url'));
    return `v1:${id}:${parts.join(':')}`;
  }

  /** The secret `sealed` holds for `owner`; `current` is false when another key sealed it. */
  open(owner: string, sealed: string): { secret: string; current: boolean } {
    const match = ENVELOPE.exec(sealed);
    if (!match) throw new TotpSecretUnreadableError(undefined, 'not a sealed TOTP secret');
    const [, id, iv, body, tag] = match as unknown as [string, string, string, string, string];
    if (this.keys.size === 0) throw new TotpKeyMissingError();
    const key = this.keys.get(id);
    if (!key) {
      throw new TotpSecretUnreadableError(
        id,
        `sealed with key ${id}, which neither TOTP_ENCRYPTION_KEY nor TOTP_ENCRYPTION_KEYS_PREVIOUS holds`,
      );
    }
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(associatedData(id, owner));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      const secret = Buffer.concat([
        decipher.update(Buffer.from(body, 'base64url')),
        decipher.final(),
      ]).toString('utf8');
      return { secret, current: id === this.currentKeyId };
    } catch {
      throw new TotpSecretUnreadableError(
        id,
        `does not open with key ${id}: altered, or copied from another row`,
      );
    }
  }
}

const associatedData = (keyId: string, owner: string) =>
  Buffer.from(`card-console totp v1\0${keyId}\0${owner}`);
