// Every card number here is made at run time from a body and the reference Luhn
// (`test/reference-luhn.ts`, written apart from the guard), never written out.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { passesLuhn, withCheckDigit } from '../../test/reference-luhn';
import { findCardNumbers, isLuhnValid } from './card-numbers';

const seed = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
console.log(`card-number properties: fast-check seed ${seed} (FC_SEED=${seed} to replay)`);

/** Every 13-19 digit window of a digit run that passes the reference Luhn. */
function passingWindows(run: string): string[] {
  const found: string[] = [];
  for (let start = 0; start < run.length; start++) {
    for (let length = 13; length <= 19 && start + length <= run.length; length++) {
      const window = run.slice(start, start + length);
      if (passesLuhn(window)) found.push(window);
    }
  }
  return found;
}

/** Deterministic digits: the same test data every run. */
function* digitStream(start: number): Generator<string> {
  let state = start;
  for (;;) {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    yield String(Math.floor(state / 2 ** 16) % 10);
  }
}

function digits(count: number, stream: Generator<string>): string {
  let out = '';
  while (out.length < count) out += stream.next().value;
  return out;
}

/**
 * A Luhn-valid number of `length` digits in which no shorter 13-19 digit window also passes,
 * so "found exactly this one" is a precise expectation.
 */
function loneCardNumber(length: number, start = length): string {
  const stream = digitStream(start);
  for (;;) {
    const number = withCheckDigit(digits(length - 1, stream));
    if (passingWindows(number).length === 1) return number;
  }
}

/** A run of `length` digits in which no 13-19 digit window passes Luhn. */
function runWithoutCardNumber(length: number, start = length): string {
  const stream = digitStream(start);
  for (;;) {
    const run = digits(length, stream);
    if (passingWindows(run).length === 0) return run;
  }
}

const grouped = (number: string, separator: string) =>
  number.match(/.{1,4}/g)?.join(separator) ?? number;

/** The same number with its last digit changed: fails Luhn. */
const wrongCheckDigit = (number: string) =>
  `${number.slice(0, -1)}${(Number(number.at(-1)) + 1) % 10}`;

describe('isLuhnValid', () => {
  // 16-digit numbers whose doubled digits are 5 or more: 2 × 5 = 10 counts as 1, which only the
  // subtract-9 step gets right. The last one has a single doubled 5 among zeros.
  const doublingNumbers = [
    withCheckDigit(`${'5'.repeat(12)}444`),
    withCheckDigit('9'.repeat(15)),
    withCheckDigit('567895678956789'),
    withCheckDigit(`${'0'.repeat(14)}5`),
  ];

  it('accepts numbers whose doubled digits are 5 or more', () => {
    for (const number of doublingNumbers) expect(isLuhnValid(number), number).toBe(true);
  });

  it('refuses each of those numbers with any other check digit', () => {
    for (const number of doublingNumbers) {
      const body = number.slice(0, -1);
      for (let check = 0; check <= 9; check++) {
        const candidate = `${body}${check}`;
        if (candidate !== number) expect(isLuhnValid(candidate)).toBe(false);
      }
    }
  });

  it('refuses a valid number with any one digit changed, the first included', () => {
    for (const number of [loneCardNumber(16), loneCardNumber(13), loneCardNumber(19)]) {
      for (let at = 0; at < number.length; at++) {
        const digit = Number(number[at]);
        const changed = `${number.slice(0, at)}${(digit + 3) % 10}${number.slice(at + 1)}`;
        expect(isLuhnValid(changed), `digit ${at} of ${number.length}`).toBe(false);
      }
    }
  });

  it('agrees with an independent Luhn on any digit string (property)', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^\d{12,18}$/), (body) => {
        expect(isLuhnValid(withCheckDigit(body))).toBe(true);
        expect(isLuhnValid(wrongCheckDigit(withCheckDigit(body)))).toBe(false);
        expect(isLuhnValid(`${body}7`)).toBe(passesLuhn(`${body}7`));
      }),
      { seed, numRuns: 300 },
    );
  });
});

describe('findCardNumbers', () => {
  it.each([13, 16, 19])('finds a %i-digit number on its own', (length) => {
    const number = loneCardNumber(length);
    expect(findCardNumbers(number)).toEqual([number]);
  });

  it('finds a number in running text', () => {
    const number = loneCardNumber(16);
    expect(findCardNumbers(`card ${number} was declined`)).toEqual([number]);
    expect(findCardNumbers(`id=card_${number}`)).toEqual([number]);
  });

  it.each([
    ['spaces', ' '],
    ['dashes', '-'],
  ])('finds a number grouped by %s', (_name, separator) => {
    const number = loneCardNumber(16);
    expect(findCardNumbers(`PAN ${grouped(number, separator)} end`)).toEqual([number]);
  });

  it('finds a number inside a longer run of digits', () => {
    const number = loneCardNumber(16);
    const run = `${runWithoutCardNumber(5, 1)}${number}${runWithoutCardNumber(4, 2)}`;
    expect(findCardNumbers(run)).toContain(number);
    expect(findCardNumbers(`ref ${run}`)).toEqual(passingWindows(run));
  });

  it('finds every number in a text holding several', () => {
    const first = loneCardNumber(16, 5);
    const second = loneCardNumber(19, 6);
    expect(findCardNumbers(`${first} and ${second}`)).toEqual([first, second]);
  });

  it.each([13, 16, 19, 25])('finds nothing in a %i-digit run where no window passes Luhn', (n) => {
    const run = runWithoutCardNumber(n);
    expect(findCardNumbers(run)).toEqual([]);
    expect(findCardNumbers(grouped(run, ' '))).toEqual([]);
  });

  it('finds nothing in a Luhn-valid run of 12 digits, too short to be a card number', () => {
    const short = withCheckDigit(runWithoutCardNumber(11));
    expect(passesLuhn(short)).toBe(true);
    expect(findCardNumbers(short)).toEqual([]);
  });

  it('finds nothing in a Luhn-valid run of 20 digits with no passing 13-19 digit window', () => {
    const stream = digitStream(20);
    let run = '';
    while (!(passesLuhn(run) && passingWindows(run).length === 0)) {
      run = withCheckDigit(digits(19, stream));
    }
    expect(findCardNumbers(run)).toEqual([]);
  });

  it('finds nothing in text without digit runs', () => {
    expect(findCardNumbers('no numbers here - just words')).toEqual([]);
  });
});
