// A second Luhn, for tests only. It is written apart from the BFF's guard
// (`platform/security/card-numbers.ts`): a table of doubled digits, read left to right, instead
// of arithmetic from the right, so a fault in the guard cannot hide in the tests that check it.

/** Each digit doubled, with the digits of the product summed (7 → 14 → 5). */
const doubledDigit = [0, 2, 4, 6, 8, 1, 3, 5, 7, 9];

/** The Luhn checksum (mod 10) of a string of digits that includes its check digit. */
function checksum(digits: string): number {
  // The check digit is never doubled; from there every second digit to the left is.
  const doubleWhenEven = digits.length % 2;
  let total = 0;
  for (const [index, char] of [...digits].entries()) {
    const digit = Number(char);
    total += index % 2 === doubleWhenEven ? (doubledDigit[digit] ?? Number.NaN) : digit;
  }
  return total % 10;
}

/** True when `digits` (digits only) passes the Luhn check. */
export function passesLuhn(digits: string): boolean {
  return /^\d+$/.test(digits) && checksum(digits) === 0;
}

/** `body` followed by the one check digit that makes it pass. */
export function withCheckDigit(body: string): string {
  const remainder = checksum(`${body}0`);
  return `${body}${(10 - remainder) % 10}`;
}
