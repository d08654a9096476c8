import { describe, expect, it } from 'vitest';
import { isoDate } from './iso-date';
import { mulberry32 } from './prng';

describe('isoDate', () => {
  it('writes what toISOString writes, across days, years and the edges of a day', () => {
    const rng = mulberry32(42);
    const samples = [
      0, 1, 999, 1000, 59_999, 86_399_999, 86_400_000, 951_782_400_000, 253_402_300_799_999,
    ];
    for (let i = 0; i < 20_000; i++) samples.push(Math.floor(rng() * 4_102_444_800_000));
    for (const ms of samples) expect(isoDate(ms)).toBe(new Date(ms).toISOString());
  });

  it('hands dates outside 1970–9999, and fractions of a millisecond, to Date, which writes or refuses them', () => {
    expect(isoDate(1.5)).toBe(new Date(1.5).toISOString());
    expect(isoDate(-1)).toBe('1969-12-31T23:59:59.999Z');
    expect(isoDate(253_402_300_800_000)).toBe(new Date(253_402_300_800_000).toISOString());
    expect(() => isoDate(Number.NaN)).toThrow(RangeError);
  });
});
