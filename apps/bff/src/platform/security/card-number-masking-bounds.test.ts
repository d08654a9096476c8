// maskCardNumbers at its edges, with fixed inputs (the property test's are random): grouped
// numbers of 13 and 19 digits, runs longer than a card number that pass the Luhn check as a
// whole, and grouped card numbers that overlap or share a group. Every number is built at run
// time with the simulator's Luhn digit.
import { luhnCheckDigit } from '@card-console/card-service-sim';
import { describe, expect, it } from 'vitest';
import { maskCardNumbers } from './card-numbers';

const passesLuhn = (digits: string) =>
  luhnCheckDigit(digits.slice(0, -1)) === Number(digits.at(-1));
const withCheck = (body: string) => `${body}${luhnCheckDigit(body)}`;
const last4 = (n: string) => `•••• ${n.slice(-4)}`;

/** Digits from a fixed linear congruential sequence: the same every run. */
function digitSource(seed: number) {
  let x = seed;
  return (count: number) => {
    let out = '';
    for (let i = 0; i < count; i++) {
      x = (x * 1_103_515_245 + 12_345) % 2_147_483_648;
      out += String(Math.floor(x / 65_536) % 10);
    }
    return out;
  };
}

/** Digit groups of the given sizes: the first source output for which `accept` holds. */
function findGroups(sizes: number[], accept: (groups: string[]) => boolean) {
  const next = digitSource(sizes.length * 100 + sizes.reduce((a, b) => a + b, 0));
  for (let tries = 0; tries < 1_000_000; tries++) {
    const groups = sizes.map((size) => next(size));
    if (accept(groups)) return groups;
  }
  throw new Error('no such groups found');
}
const fours = (count: number) => Array.from({ length: count }, () => 4);

/** Whether the groups from `a` to `b` (inclusive) read as a card number. */
const isCard = (groups: string[], a: number, b: number) => {
  const digits = groups.slice(a, b + 1).join('');
  return digits.length >= 13 && digits.length <= 19 && passesLuhn(digits);
};
/** Every window of whole groups that reads as a card number. */
const cardWindows = (groups: string[]) => {
  const windows: string[] = [];
  for (let a = 0; a < groups.length; a++) {
    for (let b = a; b < groups.length; b++) if (isCard(groups, a, b)) windows.push(`${a}-${b}`);
  }
  return windows;
};

describe('maskCardNumbers at its edges', () => {
  it.each([13, 19])('masks a %i-digit number written in groups of four', (length) => {
    const n = withCheck(`5${digitSource(length)(length - 2)}`);
    const written = n.match(/.{1,4}/g)?.join(' ') ?? n;
    expect(maskCardNumbers(`pan ${written} ok`)).toBe(`pan ${last4(n)} ok`);
  });

  it.each([20, 21, 25])(
    'leaves alone an unbroken %i-digit run that passes the Luhn check as a whole',
    (length) => {
      const run = withCheck(`9${digitSource(length)(length - 2)}`);
      expect(maskCardNumbers(`ref ${run} end`)).toBe(`ref ${run} end`);
    },
  );

  it('leaves alone grouped digits that pass the Luhn check only over more than 19 digits', () => {
    // Five groups of four: the 20-digit whole passes, no window of whole groups of 13-19 does.
    const groups = findGroups(
      fours(5),
      (g) => passesLuhn(g.join('')) && cardWindows(g).length === 0,
    );
    const text = `ref ${groups.join(' ')} end`;
    expect(maskCardNumbers(text)).toBe(text);
  });

  it('masks two card numbers that overlap in one grouped run as one, up to the later end', () => {
    // Groups 0-3 and 1-4 are card numbers; nothing else is.
    const groups = findGroups(fours(5), (g) => cardWindows(g).join() === '0-3,1-4');
    const last = groups.slice(1).join('');
    expect(maskCardNumbers(`x ${groups.join('-')} y`)).toBe(`x ${last4(last)} y`);
  });

  it('masks a card number inside another one in the same run once, keeping the outer end', () => {
    // Groups of 1, 4, 4, 4, 4 and 1 digits: 0-5 (18 digits) and 1-4 (16) are card numbers.
    const groups = findGroups([1, 4, 4, 4, 4, 1], (g) => cardWindows(g).join() === '0-5,1-4');
    const whole = groups.join('');
    expect(maskCardNumbers(`x ${groups.join(' ')} y`)).toBe(`x ${last4(whole)} y`);
  });

  it('masks two card numbers sharing one group as one', () => {
    // Groups 0-3 and 3-6 are card numbers and share group 3.
    const groups = findGroups(fours(7), (g) => cardWindows(g).join() === '0-3,3-6');
    const last = groups.slice(3).join('');
    expect(maskCardNumbers(`x ${groups.join(' ')} y`)).toBe(`x ${last4(last)} y`);
  });

  it('masks two card numbers in one run that do not touch each on its own, keeping the group between', () => {
    // Groups 0-3 and 5-8 are card numbers; group 4 belongs to neither.
    const groups = findGroups(fours(9), (g) => cardWindows(g).join() === '0-3,5-8');
    const first = groups.slice(0, 4).join('');
    const second = groups.slice(5).join('');
    expect(maskCardNumbers(`x ${groups.join(' ')} y`)).toBe(
      `x ${last4(first)} ${groups[4]} ${last4(second)} y`,
    );
  });
});
