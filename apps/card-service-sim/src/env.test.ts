import { describe, expect, it } from 'vitest';
import { parseEnv } from './env';

describe('standalone environment', () => {
  it('uses the defaults when nothing is set', () => {
    expect(parseEnv({})).toEqual({
      ok: true,
      env: { PORT: 4010, CARD_API_KEY: 'demo-key', SIM_SEED: 42, SIM_TRANSACTIONS: 20_000 },
    });
  });

  it('reads every variable', () => {
    const parsed = parseEnv({
      PORT: '5000',
      CARD_API_KEY: 'k',
      SIM_SEED: '7',
      SIM_TRANSACTIONS: '100',
    });
    expect(parsed).toEqual({
      ok: true,
      env: { PORT: 5000, CARD_API_KEY: 'k', SIM_SEED: 7, SIM_TRANSACTIONS: 100 },
    });
  });

  it('names the variable when a value is bad', () => {
    for (const [name, value] of [
      ['PORT', 'abc'],
      ['PORT', '70000'],
      ['SIM_SEED', '-1'],
      ['SIM_TRANSACTIONS', '1.5'],
    ] as const) {
      const parsed = parseEnv({ [name]: value });
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) expect(parsed.message).toContain(name);
    }
  });

  it('never echoes the key in its message', () => {
    const parsed = parseEnv({ CARD_API_KEY: 'secret-value', PORT: 'x' });
    expect(parsed.ok || parsed.message.includes('secret-value')).toBe(false);
  });
});
