import { describe, expect, it } from 'vitest';
import { parseEnv } from './env';

describe('standalone environment', () => {
  it('uses the defaults when nothing is set', () => {
    expect(parseEnv({})).toEqual({
      ok: true,
      env: {
        PORT: 4010,
        CARD_API_KEY: 'demo-key',
        SIM_SEED: 42,
        SIM_TRANSACTIONS: 20_000,
        SIM_TEST_HOOKS: false,
      },
    });
  });

  it('reads every variable', () => {
    const parsed = parseEnv({
      PORT: '5000',
      CARD_API_KEY: 'k',
      SIM_SEED: '7',
      SIM_TRANSACTIONS: '100',
      SIM_TEST_HOOKS: '1',
    });
    expect(parsed).toEqual({
      ok: true,
      env: {
        PORT: 5000,
        CARD_API_KEY: 'k',
        SIM_SEED: 7,
        SIM_TRANSACTIONS: 100,
        SIM_TEST_HOOKS: true,
      },
    });
  });

  it('names the variable when a value is bad', () => {
    for (const [name, value] of [
      ['PORT', 'abc'],
      ['PORT', '70000'],
      ['SIM_SEED', '-1'],
      ['SIM_TRANSACTIONS', '1.5'],
      ['SIM_TEST_HOOKS', 'yes'],
    ] as const) {
      const parsed = parseEnv({ [name]: value });
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) expect(parsed.message).toContain(name);
    }
  });

  it('refuses the test hooks with NODE_ENV=production, and takes them otherwise', () => {
    const refused = parseEnv({ SIM_TEST_HOOKS: '1', NODE_ENV: 'production' });
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.message).toContain('SIM_TEST_HOOKS');
    expect(parseEnv({ SIM_TEST_HOOKS: '0', NODE_ENV: 'production' }).ok).toBe(true);
    const on = parseEnv({ SIM_TEST_HOOKS: '1', NODE_ENV: 'test' });
    expect(on.ok && on.env.SIM_TEST_HOOKS).toBe(true);
  });

  it('never echoes the key in its message', () => {
    const parsed = parseEnv({ CARD_API_KEY: 'secret-value', PORT: 'x' });
    expect(parsed.ok || parsed.message.includes('secret-value')).toBe(false);
  });
});
