// Card numbers as someone might write them to slip past a check, for property tests: any
// groups of their digits joined by runs of separators. Made at run time with the reference Luhn.
import fc from 'fast-check';
import { withCheckDigit } from './reference-luhn';

/** Separators people type, or paste, between digit groups. */
const separatorChars = [' ', '\t', '\u00A0', '\u2009', '\u202F', '-', '\u2013', '\u2014'];
const otherSeparators = [':', '.', '/', '\\', '_', '\uFF1A', '\n'];

/**
 * A card number as someone might write it to slip past a check: its digits (13-19, Luhn-valid,
 * starting as an issued number does: never 0 or 20) cut into groups of 1-6, each pair of
 * groups joined by a run of 1-5 separators of any mix.
 */
export const writtenCardNumber = fc
  .tuple(
    fc.constantFrom('1', '21', '3', '4', '5', '6', '7', '8', '9'),
    fc.integer({ min: 13, max: 19 }),
    fc.infiniteStream(fc.integer({ min: 0, max: 9 })),
  )
  .chain(([lead, length, digitStream]) => {
    const body = `${lead}${[...digitStream.take(length - 1 - lead.length)].join('')}`;
    const digits = withCheckDigit(body);
    return fc
      .tuple(
        fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 19, maxLength: 19 }),
        fc.array(
          fc.array(fc.constantFrom(...separatorChars, ...otherSeparators), {
            minLength: 1,
            maxLength: 5,
          }),
          { minLength: 19, maxLength: 19 },
        ),
      )
      .map(([sizes, runs]) => {
        let written = '';
        let at = 0;
        for (let g = 0; at < digits.length; g++) {
          const size = sizes[g] ?? 4;
          if (at > 0) written += (runs[g] ?? [' ']).join('');
          written += digits.slice(at, at + size);
          at += size;
        }
        return { digits, written };
      });
  });
