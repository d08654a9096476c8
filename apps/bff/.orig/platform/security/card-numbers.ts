/** Luhn check over a string of digits. */
export function isLuhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

/**
 * Every Luhn-valid run of 13-19 digits in `text` (also inside longer runs and with the usual
 * space or dash grouping), i.e. anything that could be a card number.
 */
export function findCardNumbers(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/\d(?:[ -]?\d){12,}/g)) {
    const digits = match[0].replace(/[ -]/g, '');
    for (let start = 0; start + 13 <= digits.length; start++) {
      for (let length = 13; length <= 19 && start + length <= digits.length; length++) {
        const candidate = digits.slice(start, start + length);
        if (isLuhnValid(candidate)) found.push(candidate);
      }
    }
  }
  return found;
}
