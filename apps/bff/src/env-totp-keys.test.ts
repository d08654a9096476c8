// TOTP_ENCRYPTION_KEY and TOTP_ENCRYPTION_KEYS_PREVIOUS: required outside demo mode, 32 bytes in
// base64 or hex, the previous keys kept for the secrets they sealed; demo mode's own key.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError, DEMO_TOTP_KEY, loadConfig, totpKeysOf } from './env';

const KEY = Buffer.alloc(32, 7);
const OLD = Buffer.alloc(32, 9);
const production = {
  CARD_API_BASE_URL: 'https://cards.example.com/v1',
  CARD_API_KEY: 'k',
  USERS_FILE: '/etc/card-console/users.json',
  SESSION_SECRET: 's'.repeat(40),
  PUBLIC_ORIGIN: 'https://console.example.com',
  TOTP_ENCRYPTION_KEY: KEY.toString('base64'),
};

function messageOf(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected loadConfig to refuse');
}

describe('the TOTP encryption keys', () => {
  it('production refuses to start without one, saying how to make one; single sign-on only too', () => {
    const { TOTP_ENCRYPTION_KEY: _, ...without } = production;
    for (const env of [
      without,
      { ...without, TOTP_ENCRYPTION_KEY: '' },
      { ...without, USERS_FILE: '', OIDC_ISSUER: 'https://idp.example.com' },
    ]) {
      const message = messageOf(env as Record<string, string>);
      expect(message).toContain('TOTP_ENCRYPTION_KEY: required outside demo mode');
      expect(message).toContain('openssl rand -base64 32');
    }
  });

  it('reads the key in base64 (either alphabet, padded or not) or hex, and the previous keys in order', () => {
    const keys = [
      KEY.toString('base64'),
      KEY.toString('base64').replace(/=$/, ''),
      KEY.toString('base64url'),
      KEY.toString('hex'),
      ` ${KEY.toString('hex').toUpperCase()} `,
    ];
    for (const key of keys) {
      expect(loadConfig({ ...production, TOTP_ENCRYPTION_KEY: key }).totpKeys, key).toEqual({
        current: KEY,
        previous: [],
      });
    }
    const config = loadConfig({
      ...production,
      TOTP_ENCRYPTION_KEYS_PREVIOUS: ` ${OLD.toString('hex')} ,${KEY.toString('base64')},`,
    });
    expect(config.totpKeys).toEqual({ current: KEY, previous: [OLD, KEY] });
  });

  it.each([
    ['too short', Buffer.alloc(16, 1).toString('base64')],
    ['too long', Buffer.alloc(48, 1).toString('base64')],
    ['not base64 or hex', `${'!'.repeat(43)}=`],
    ['hex one digit short', KEY.toString('hex').slice(1)],
    ['a passphrase', 'correct horse battery staple correct horse'],
  ])('refuses a key %s, naming the variable and never echoing it', (_what, key) => {
    const message = messageOf({ ...production, TOTP_ENCRYPTION_KEY: key });
    expect(message).toContain('TOTP_ENCRYPTION_KEY: must be 32 random bytes in base64 or hex');
    expect(message).not.toContain(key);
    const previous = messageOf({
      ...production,
      TOTP_ENCRYPTION_KEYS_PREVIOUS: `${OLD.toString('hex')},${key}`,
    });
    expect(previous).toContain('TOTP_ENCRYPTION_KEYS_PREVIOUS.1: must be 32 random bytes');
    expect(previous).not.toContain(key);
  });

  it('refuses previous keys without a current one, in demo mode too', () => {
    expect(
      messageOf({ DEMO_MODE: '1', TOTP_ENCRYPTION_KEYS_PREVIOUS: OLD.toString('base64') }),
    ).toContain('TOTP_ENCRYPTION_KEYS_PREVIOUS: set without TOTP_ENCRYPTION_KEY');
  });

  it('demo mode without one uses its own key, derived from a public text, the same at every start', () => {
    const demo = loadConfig({ DEMO_MODE: '1' });
    expect(demo.totpKeys).toEqual({ current: DEMO_TOTP_KEY, previous: [] });
    expect(DEMO_TOTP_KEY).toEqual(
      createHash('sha256')
        .update('Card Console demo mode: its public TOTP encryption key')
        .digest(),
    );
    expect(
      loadConfig({ DEMO_MODE: '1', TOTP_ENCRYPTION_KEY: KEY.toString('hex') }).totpKeys,
    ).toEqual({ current: KEY, previous: [] });
  });

  it('`pnpm users` reads the same keys, none outside demo mode without one', () => {
    expect(totpKeysOf({ TOTP_ENCRYPTION_KEY: KEY.toString('base64') })).toEqual({
      current: KEY,
      previous: [],
    });
    expect(
      totpKeysOf({
        TOTP_ENCRYPTION_KEY: KEY.toString('base64'),
        TOTP_ENCRYPTION_KEYS_PREVIOUS: OLD.toString('hex'),
      }),
    ).toEqual({ current: KEY, previous: [OLD] });
    expect(totpKeysOf({ DEMO_MODE: '1' })).toEqual({ current: DEMO_TOTP_KEY, previous: [] });
    expect(totpKeysOf({})).toBeUndefined();
    expect(
      totpKeysOf({ DEMO_MODE: '1', CARD_API_BASE_URL: 'https://cards.example.com' }),
    ).toBeUndefined();
    expect(() => totpKeysOf({ TOTP_ENCRYPTION_KEY: 'short' })).toThrow(
      'TOTP_ENCRYPTION_KEY: must be 32 random bytes',
    );
  });
});
