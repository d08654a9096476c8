// TOTP encryption keys for tests: fixed, so a failure can be replayed, and never the demo's.
import { TotpSecretBox } from '../platform/security/totp-secret-box';

const key = (byte: number) => Buffer.alloc(32, byte);

/** The key tests seal with, and two others (a rotation's old key, a key nobody configured). */
export const TEST_TOTP_KEY = key(0x11);
export const OLD_TOTP_KEY = key(0x22);
export const OTHER_TOTP_KEY = key(0x33);

/** Seals with TEST_TOTP_KEY; `previous` keys still open what they sealed. */
export const testTotpSecrets = (previous: Buffer[] = []) =>
  new TotpSecretBox({ current: TEST_TOTP_KEY, previous });
