// A card number written with any runs of separators between any groups of its digits is found
// by every check: the masking, the audit's guard, ids and stored texts. Numbers are made at run
// time with the reference Luhn (test/reference-luhn.ts), never written out.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { withCheckDigit } from '../../test/reference-luhn';
import { writtenCardNumber } from '../../test/written-card-numbers';
import { holdsCardNumber, withCardNumbersMasked } from './card-number-ids';
import { containsCardNumber, findCardNumbers, maskCardNumbers } from './card-numbers';

const seed = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
console.log(`card-number separator runs: fast-check seed ${seed} (FC_SEED=${seed} to replay)`);

describe('a card number joined by runs of separators', () => {
  it('is found by every check, whatever the runs and the groups (property)', () => {
    fc.assert(
      fc.property(
        writtenCardNumber,
        fc.constantFrom('', 'memo ', 'Paid by card '),
        fc.constantFrom('', ' ok', ' – thanks'),
        ({ digits, written }, before, after) => {
          const text = `${before}${written}${after}`;
          expect(containsCardNumber(text), JSON.stringify(text)).toBe(true);
          expect(holdsCardNumber(text), JSON.stringify(text)).toBe(true);
          expect(findCardNumbers(text)).toContain(digits);
          const masked = maskCardNumbers(text);
          expect(masked, JSON.stringify(text)).toBe(`${before}•••• ${digits.slice(-4)}${after}`);
          expect(withCardNumbersMasked(text)).toBe(`${before}•••• ${digits.slice(-4)}${after}`);
        },
      ),
      { seed, numRuns: 2_000 },
    );
  });

  it.each([
    ['two spaces', '  '],
    ['colons', ':'],
    ['tabs', '\t'],
    ['spaced dashes', ' - '],
    ['a no-break space and a space', '\u00A0 '],
  ])('the issue’s example with %s is found', (_name, joiner) => {
    const digits = withCheckDigit('411111111111111');
    const text = digits.match(/.{4}/g)?.join(joiner) as string;
    expect(maskCardNumbers(text)).toBe(`•••• ${digits.slice(-4)}`);
    expect(containsCardNumber(text)).toBe(true);
    expect(holdsCardNumber(text)).toBe(true);
  });
});
