// Every card number here is built at run time from a body and the simulator's Luhn digit.
import { luhnCheckDigit } from '@card-console/card-service-sim';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { maskCardNumbers } from './card-numbers';

const seed = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
console.log(`card-number masking: fast-check seed ${seed} (FC_SEED=${seed} to replay)`);

const withCheck = (body: string) => `${body}${luhnCheckDigit(body)}`;
/** A Luhn-valid number of `length` digits, varied by `seed`. */
const cardNumber = (length: number, seed = 1) =>
  withCheck(`4${String(seed * 7919).padStart(length - 2, '3')}`.slice(0, length - 1));
const wrongCheck = (n: string) => `${n.slice(0, -1)}${(Number(n.at(-1)) + 1) % 10}`;
const grouped = (n: string, separator: string) => n.match(/.{1,4}/g)?.join(separator) ?? n;
const last4 = (n: string) => `•••• ${n.slice(-4)}`;

const passesLuhn = (digits: string) =>
  luhnCheckDigit(digits.slice(0, -1)) === Number(digits.at(-1));

/**
 * What joins two digit groups, written out here apart from the matcher: any run of white space
 * of any kind, dashes or minus signs, dots, slashes, backslashes, underscores, colons or
 * middle dots.
 */
const separators = '[\\s\\u2010-\\u2015\\u2212\\-./\\\\_:\\u00B7\\uFF0E\\uFF0F\\uFF1A]+';
/** Zero-width and other invisible characters: read as if absent. */
const invisible = /\u200B|\u200D|\u2060|\u00AD|\uFEFF/g;
/** Runs of digits joined by runs of separators, as their digit groups. */
const runsOf = (text: string) =>
  (text.replace(invisible, '').match(new RegExp(`\\d+(?:${separators}\\d+)*`, 'g')) ?? []).map(
    (r) => r.split(new RegExp(separators)),
  );
/**
 * Something that could read as a date (a year 20xx, then two two-digit groups): such text is
 * left to the dates' own tests (card-number-dates.test.ts), this reference knowing no dates.
 */
const dateLike = (text: string) =>
  runsOf(text).some((groups) =>
    groups.some(
      (g, i) => /^20\d\d$/.test(g) && groups[i + 1]?.length === 2 && groups[i + 2]?.length === 2,
    ),
  );

/** The card numbers in `text`: whole consecutive digit groups, 13-19 digits, Luhn-valid. */
function cardNumbersIn(text: string): string[] {
  const found: string[] = [];
  for (const groups of runsOf(text)) {
    for (let a = 0; a < groups.length; a++) {
      for (let b = a + 1; b <= groups.length; b++) {
        const digits = groups.slice(a, b).join('');
        if (digits.length >= 13 && digits.length <= 19 && passesLuhn(digits)) found.push(digits);
      }
    }
  }
  return found;
}

describe('maskCardNumbers', () => {
  it('masks a card number in running text to its last four digits', () => {
    const n = cardNumber(16);
    expect(maskCardNumbers(`card ${n} declined`)).toBe(`card ${last4(n)} declined`);
  });

  it.each([13, 15, 19])('masks a %i-digit card number', (length) => {
    const n = cardNumber(length, length);
    expect(n).toHaveLength(length);
    expect(maskCardNumbers(n)).toBe(last4(n));
  });

  it('catches numbers that need the doubling step (doubled digits of 5 and more)', () => {
    for (const n of [withCheck(`${'5'.repeat(12)}444`), withCheck('9'.repeat(15))]) {
      expect(maskCardNumbers(`x ${n} y`)).toBe(`x ${last4(n)} y`);
      // The same digits with another check digit are not a card number.
      expect(maskCardNumbers(`x ${wrongCheck(n)} y`)).toBe(`x ${wrongCheck(n)} y`);
    }
  });

  it('masks numbers written in groups of four with spaces or dashes', () => {
    const n = cardNumber(16, 3);
    expect(maskCardNumbers(`pan ${grouped(n, ' ')}.`)).toBe(`pan ${last4(n)}.`);
    expect(maskCardNumbers(`pan ${grouped(n, '-')}.`)).toBe(`pan ${last4(n)}.`);
  });

  it('masks a grouped number next to other digit groups, keeping the other groups', () => {
    const n = cardNumber(16, 4);
    expect(maskCardNumbers(`order 77 ${grouped(n, ' ')}`)).toBe(`order 77 ${last4(n)}`);
    expect(maskCardNumbers(`${grouped(n, ' ')} 12/27`)).toBe(`${last4(n)} 12/27`);
  });

  it('masks each of several numbers with its own last four', () => {
    const a = cardNumber(16, 5);
    const b = cardNumber(15, 6);
    expect(maskCardNumbers(`${a} and ${b}`)).toBe(`${last4(a)} and ${last4(b)}`);
  });

  it('leaves digit runs that are not card numbers as they are', () => {
    const n = cardNumber(16, 7);
    for (const text of [
      `ref ${wrongCheck(n)}`,
      `short ${n.slice(0, 12)}`,
      // An unbroken run longer than 19 digits is a network reference, not a card number.
      `7${n}0000`,
      'Blue Bottle Coffee',
      '',
    ]) {
      expect(maskCardNumbers(text)).toBe(text);
    }
  });

  it('leaves no card number in any text, and changes text without one not at all (property)', () => {
    const joiners = [' ', '-', '.', '/', '_', '\u00A0', '\u2009', '\u202F', '\u2013', '\\', ':'];
    const pieces = fc.oneof(
      fc.constantFrom(
        ...joiners,
        'a',
        'card ',
        '  ',
        '--',
        ' - ',
        '\t ',
        '•',
        ',',
        '\u200B',
        ' \u200B',
      ),
      fc.stringMatching(/^\d{1,6}$/),
      fc
        .integer({ min: 12, max: 18 })
        .chain((len) => fc.stringMatching(new RegExp(`^\\d{${len}}$`)).map(withCheck)),
      fc
        .tuple(fc.stringMatching(/^\d{15}$/), fc.constantFrom(...joiners))
        .map(([body, joiner]) => grouped(withCheck(body), joiner)),
    );
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 8 }), (parts) => {
        const text = parts.join('');
        fc.pre(!dateLike(text));
        const masked = maskCardNumbers(text);
        const found = cardNumbersIn(text);
        const digitsLeft = runsOf(masked).map((groups) => groups.join(''));
        for (const n of found) {
          expect(
            digitsLeft.some((d) => d.includes(n)),
            `${text} → ${masked}`,
          ).toBe(false);
        }
        // Nor does masking leave a new one (the last four shown joining the groups after them).
        expect(cardNumbersIn(masked), `${text} → ${masked}`).toEqual([]);
        if (found.length === 0) expect(masked).toBe(text);
      }),
      { seed, numRuns: 500 },
    );
  });
});
