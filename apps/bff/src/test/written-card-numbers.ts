// Card numbers as someone might write them to slip past a check, for property tests: any
// groups of their digits joined by runs of separators. Made at run time with the reference Luhn.
import fc from 'fast-check';
import { withCheckDigit } from './reference-luhn';

/** Separators people type, or paste, between digit groups, control characters aside. */
export const visibleSeparators = [
  ' ',
  '\u00A0',
  '\u2009',
  '\u202F',
  '-',
  '\u2013',
  '\u2014',
  ':',
  '.',
  '/',
  '\\',
  '_',
  '\uFF1A',
] as const;
/** And with the control characters a memo or a file name may bring. */
export const anySeparators = [...visibleSeparators, '\t', '\n'] as const;

export interface WrittenCardNumberOptions {
  /** What may join two groups (any run of them, mixed). */
  separators?: readonly string[];
  /** How long a run of separators may be. */
  runs?: { min: number; max: number };
  /** How many digits a group may hold. */
  groups?: { min: number; max: number };
  /** How long the written number may be, when the field caps it. */
  maxLength?: number;
}

/**
 * A card number as someone might write it to slip past a check: its digits (13-19, Luhn-valid,
 * starting as an issued number does: never 0 or 20) cut into groups, each pair of groups
 * joined by a run of separators of any mix.
 */
export function writtenCardNumbers({
  separators = anySeparators,
  runs = { min: 1, max: 5 },
  groups = { min: 1, max: 6 },
  maxLength = Number.POSITIVE_INFINITY,
}: WrittenCardNumberOptions = {}) {
  return fc
    .tuple(
      fc.constantFrom('1', '21', '3', '4', '5', '6', '7', '8', '9'),
      fc.integer({ min: 13, max: 19 }),
      fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 19, maxLength: 19 }),
      fc.array(fc.integer(groups), { minLength: 19, maxLength: 19 }),
      fc.array(
        fc.array(fc.constantFrom(...separators), { minLength: runs.min, maxLength: runs.max }),
        {
          minLength: 19,
          maxLength: 19,
        },
      ),
    )
    .map(([lead, length, digitsDrawn, sizes, joins]) => {
      const digits = withCheckDigit(`${lead}${digitsDrawn.join('')}`.slice(0, length - 1));
      let written = '';
      let at = 0;
      for (let g = 0; at < digits.length; g++) {
        const size = sizes[g] ?? 4;
        if (at > 0) written += (joins[g] ?? [' ']).join('');
        written += digits.slice(at, at + size);
        at += size;
      }
      return { digits, written };
    })
    .filter(({ written }) => written.length <= maxLength);
}

/** With every separator, any run of 1-5 of them, groups of 1-6 digits. */
export const writtenCardNumber = writtenCardNumbers();
