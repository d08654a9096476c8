/**
 * Card secrets for tests, made at run time so no card number or security code is ever
 * written in the source. The number is Luhn-valid and ends in the given last four.
 */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return digits.length >= 12 && sum % 10 === 0;
}

export function fakePan(last4: string): string {
  for (;;) {
    let body = '4';
    while (body.length < 12) body += String(Math.floor(Math.random() * 10));
    const candidate = `${body}${last4}`;
    if (luhnValid(candidate)) return candidate;
  }
}

export function fakeCvv(): string {
  return String(Math.floor(Math.random() * 900) + 100);
}

/** A card number as the reveal shows it: in groups of four. */
export function grouped(pan: string): string {
  return pan.replace(/(.{4})(?=.)/g, '$1 ');
}
