// What the server logs after sealing the people's secrets when it opens the store: the counts
// when it sealed any, and an error naming the people and keys it could not read.
import { describe, expect, it } from 'vitest';
import { logSecretsSealed } from './person-secrets';

function capture() {
  const lines: { level: 'info' | 'error'; fields: object; message: string }[] = [];
  const logger = {
    info: (fields: object, message: string) => lines.push({ level: 'info', fields, message }),
    error: (fields: object, message: string) => lines.push({ level: 'error', fields, message }),
  };
  return { logger: logger as unknown as Parameters<typeof logSecretsSealed>[0], lines };
}

describe('logging what sealing did', () => {
  it('says nothing when there was nothing to seal', () => {
    const { logger, lines } = capture();
    logSecretsSealed(logger, { sealed: 0, resealed: 0, unreadable: [] });
    expect(lines).toEqual([]);
  });

  it('counts what it sealed, kept in clear before or under a previous key', () => {
    for (const [sealed, resealed] of [
      [2, 0],
      [0, 3],
      [1, 1],
    ] as const) {
      const { logger, lines } = capture();
      logSecretsSealed(logger, { sealed, resealed, unreadable: [] });
      expect(lines).toEqual([
        {
          level: 'info',
          fields: { sealed, resealed },
          message: 'second-factor secrets sealed with the current key',
        },
      ]);
    }
  });

  it('names the people and the keys their secrets need, each key once, as an error', () => {
    const { logger, lines } = capture();
    logSecretsSealed(logger, {
      sealed: 0,
      resealed: 0,
      unreadable: [
        { email: 'ana@example.test', keyId: 'AAAAAAAA' },
        { email: 'bo@example.test', keyId: 'AAAAAAAA' },
        { email: 'cy@example.test', keyId: undefined },
      ],
    });
    expect(lines).toEqual([
      {
        level: 'error',
        fields: {
          people: ['ana@example.test', 'bo@example.test', 'cy@example.test'],
          keys: 'AAAAAAAA, none',
        },
        message:
          '3 second-factor secret(s) no configured key opens (sealed with key AAAAAAAA, none): those people cannot pass a TOTP check until TOTP_ENCRYPTION_KEY or TOTP_ENCRYPTION_KEYS_PREVIOUS holds that key again',
      },
    ]);
  });
});
