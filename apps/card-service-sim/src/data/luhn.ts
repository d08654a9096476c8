import type { Rng } from './prng';

/** Luhn check digit for a string of digits (the number without its check digit). */
export function luhnCheckDigit(digits: string): number {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return (10 - (sum % 10)) % 10;
}

export function isLuhnValid(number: string): boolean {
  if (!/^\d{2,}$/.test(number)) return false;
  return luhnCheckDigit(number.slice(0, -1)) === Number(number.at(-1));
}

/**
 * A 16-digit test-range card number built at run time: a "4000 00" test BIN, nine random
 * digits and the Luhn digit. No literal card number ever lives in the source.
 */
export function generatePan(rng: Rng): string {
  let body = `4000${Math.floor(rng() * 100)
    .toString()
    .padStart(2, '0')}`;
  while (body.length < 15) body += Math.floor(rng() * 10).toString();
  return body + luhnCheckDigit(body).toString();
}

export function generateCvv(rng: Rng): string {
  return Math.floor(rng() * 1000)
    .toString()
    .padStart(3, '0');
}
