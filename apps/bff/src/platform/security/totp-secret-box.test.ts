import { describe, expect, it } from 'vitest';
import { OLD_TOTP_KEY, OTHER_TOTP_KEY, TEST_TOTP_KEY, testTotpSecrets } from '../../test/totp-keys';
import {
  isSealedSecret,
  TotpKeyMissingError,
  TotpSecretBox,
  TotpSecretUnreadableError,
  totpKeyId,
} from './totp-secret-box';

const SECRET = 'KRUGS4ZANFZSAYJAONSWG4TFOQQGC3TE'; // 160 bits, base32
const ANA = 'person:ana@example.test';

const refusal = (work: () => unknown): unknown => {
  try {
    work();
  } catch (error) {
    return error;
  }
  throw new Error('expected a refusal');
};

describe('the TOTP secret box', () => {
  it('seals text of any kind and gives it back as it was', () => {
    const box = testTotpSecrets();
    for (const text of [SECRET, 'é ünïcode ✓', 'x'.repeat(300)]) {
      expect(box.open(ANA, box.seal(ANA, text)).secret).toBe(text);
    }
    // The owner is compared as text too: another spelling of it is another owner.
    expect(() => box.open('person:ANA@example.test', box.seal(ANA, SECRET))).toThrow(
      TotpSecretUnreadableError,
    );
    expect(() =>
      box.open('person:ana@example.tést', box.seal('person:ana@example.tèst', SECRET)),
    ).toThrow(TotpSecretUnreadableError);
  });

  it('seals into a versioned envelope naming the key, holding nothing of the secret, new each time', () => {
    const box = testTotpSecrets();
    const sealed = box.seal(ANA, SECRET);
    const id = totpKeyId(TEST_TOTP_KEY);
    expect(sealed).toMatch(
      new RegExp(`^v1:${id}:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]+:[A-Za-z0-9_-]{22}$`),
    );
    expect(box.currentKeyId).toBe(id);
    expect(sealed).not.toContain(SECRET);
    expect(sealed).not.toContain(SECRET.slice(0, 8));
    expect(box.seal(ANA, SECRET)).not.toBe(sealed);
    expect(box.open(ANA, sealed)).toEqual({ secret: SECRET, current: true });
    expect(isSealedSecret(sealed)).toBe(true);
    expect(isSealedSecret(SECRET)).toBe(false);
  });

  it('key ids are stable across releases, short and differ between keys', () => {
    // Envelopes name their key by this id: a change of how it is made would strand them all.
    expect(totpKeyId(Buffer.alloc(32, 0x11))).toBe('cfiC9WCX');
    expect(totpKeyId(TEST_TOTP_KEY)).toBe(totpKeyId(Buffer.from(TEST_TOTP_KEY)));
    expect(totpKeyId(TEST_TOTP_KEY)).toMatch(/^[A-Za-z0-9_-]{8}$/);
    expect(totpKeyId(TEST_TOTP_KEY)).not.toBe(totpKeyId(OLD_TOTP_KEY));
  });

  it("an envelope copied to another person's row does not open there", () => {
    const box = testTotpSecrets();
    const sealed = box.seal(ANA, SECRET);
    const error = refusal(() => box.open('person:bo@example.test', sealed));
    expect(error).toBeInstanceOf(TotpSecretUnreadableError);
    expect((error as Error).name).toBe('TotpSecretUnreadableError');
    expect((error as TotpSecretUnreadableError).keyId).toBe(totpKeyId(TEST_TOTP_KEY));
    expect((error as Error).message).toMatch(/altered, or copied from another row/);
  });

  it('an altered envelope (iv, ciphertext, tag or key id) does not open', () => {
    const box = testTotpSecrets([OLD_TOTP_KEY]);
    const sealed = box.seal(ANA, SECRET);
    const parts = sealed.split(':');
    for (const at of [2, 3, 4]) {
      const changed = [...parts];
      const part = changed[at] as string;
      changed[at] = `${part[0] === 'A' ? 'B' : 'A'}${part.slice(1)}`;
      expect(() => box.open(ANA, changed.join(':')), `part ${at}`).toThrow(
        TotpSecretUnreadableError,
      );
    }
    // Named as sealed by the other key it holds: the key is part of what is authenticated.
    const relabelled = [parts[0], totpKeyId(OLD_TOTP_KEY), ...parts.slice(2)].join(':');
    expect(() => box.open(ANA, relabelled)).toThrow(TotpSecretUnreadableError);
  });

  it('refuses what is not an envelope: a clear secret, another version, a truncated one', () => {
    const box = testTotpSecrets();
    const sealed = box.seal(ANA, SECRET);
    for (const value of [
      SECRET,
      '',
      sealed.replace(/^v1:/, 'v2:'),
      sealed.slice(0, -1),
      `x${sealed}`,
      ` ${sealed}`,
      sealed.split(':').slice(0, 4).join(':'),
      `${sealed}:x`,
    ]) {
      const error = refusal(() => box.open(ANA, value));
      expect(error, value).toBeInstanceOf(TotpSecretUnreadableError);
      expect((error as TotpSecretUnreadableError).keyId, value).toBeUndefined();
      expect((error as Error).message).toBe('not a sealed TOTP secret');
    }
  });

  it('after a key change, a previous key still opens what it sealed and says so', () => {
    const before = new TotpSecretBox({ current: OLD_TOTP_KEY, previous: [] });
    const sealed = before.seal(ANA, SECRET);
    const after = testTotpSecrets([OTHER_TOTP_KEY, OLD_TOTP_KEY]);
    expect(after.open(ANA, sealed)).toEqual({ secret: SECRET, current: false });
    const resealed = after.seal(ANA, SECRET);
    expect(resealed.split(':')[1]).toBe(totpKeyId(TEST_TOTP_KEY));
    expect(after.open(ANA, resealed)).toEqual({ secret: SECRET, current: true });
  });

  it('a key the environment no longer holds is named in the refusal', () => {
    const sealed = new TotpSecretBox({ current: OLD_TOTP_KEY, previous: [] }).seal(ANA, SECRET);
    const error = refusal(() => testTotpSecrets().open(ANA, sealed));
    expect(error).toBeInstanceOf(TotpSecretUnreadableError);
    expect((error as TotpSecretUnreadableError).keyId).toBe(totpKeyId(OLD_TOTP_KEY));
    expect((error as Error).message).toBe(
      `sealed with key ${totpKeyId(OLD_TOTP_KEY)}, which neither TOTP_ENCRYPTION_KEY nor TOTP_ENCRYPTION_KEYS_PREVIOUS holds`,
    );
  });

  it('with no key, neither seals nor opens, and says which variable is missing', () => {
    const none = new TotpSecretBox(undefined);
    expect(none.currentKeyId).toBeUndefined();
    expect(() => none.seal(ANA, SECRET)).toThrow(TotpKeyMissingError);
    const sealed = testTotpSecrets().seal(ANA, SECRET);
    const error = refusal(() => none.open(ANA, sealed));
    expect(error).toBeInstanceOf(TotpKeyMissingError);
    expect((error as Error).name).toBe('TotpKeyMissingError');
    expect((error as Error).message).toMatch(/^TOTP_ENCRYPTION_KEY is not set/);
  });

  it('takes only 32-byte keys', () => {
    expect(() => new TotpSecretBox({ current: Buffer.alloc(16), previous: [] })).toThrow(
      'a TOTP encryption key is 32 bytes',
    );
    expect(
      () => new TotpSecretBox({ current: TEST_TOTP_KEY, previous: [Buffer.alloc(31)] }),
    ).toThrow('a TOTP encryption key is 32 bytes');
  });
});
