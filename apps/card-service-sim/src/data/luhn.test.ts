import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateCvv, generatePan, isLuhnValid, luhnCheckDigit } from './luhn';
import { mulberry32 } from './prng';

describe('Luhn', () => {
  it('computes the check digit of a known ISO/IEC 7812 example', () => {
    // The worked example of the Luhn article: payload 7992739871 has check digit 3.
    expect(luhnCheckDigit('7992739871')).toBe(3);
    expect(isLuhnValid('79927398713')).toBe(true);
    expect(isLuhnValid('79927398710')).toBe(false);
  });

  it('generated PANs are 16 digits on the test BIN, Luhn-valid, and one changed digit breaks them', () => {
    const seed = 1234;
    fc.assert(
      fc.property(fc.integer(), fc.integer({ min: 0, max: 15 }), (s, at) => {
        const pan = generatePan(mulberry32(s));
        expect(pan).toMatch(/^4000\d{12}$/);
        expect(isLuhnValid(pan)).toBe(true);
        const digit = Number(pan[at]);
        const changed = pan.slice(0, at) + ((digit + 1) % 10) + pan.slice(at + 1);
        expect(isLuhnValid(changed)).toBe(false);
      }),
      { seed },
    );
  });

  it('CVVs are three digits', () => {
    const rng = mulberry32(9);
    for (let i = 0; i < 200; i++) expect(generateCvv(rng)).toMatch(/^\d{3}$/);
  });
});
