/**
 * A Luhn-valid 16-digit card number made at run time, so no card number is ever written in a
 * file. `seed` varies the digits.
 */
export function testPan(seed = 0): string {
  const body = `400000${String(seed).padStart(9, '0').slice(-9)}`;
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    let digit = Number(body[body.length - 1 - i]);
    if (i % 2 === 0) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return `${body}${(10 - (sum % 10)) % 10}`;
}
