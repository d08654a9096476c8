// Its own Luhn, not the BFF's guard: a fault in the guard must not blind the scan too.
import { passesLuhn } from './reference-luhn';

const year2000 = 946_684_800_000;
const year2100 = 4_102_444_800_000;

/**
 * What looks like a card number in `text`: a standalone Luhn-valid run of 13-19 digits, or
 * one written in groups of four. Not flagged: runs inside longer digit strings (reference
 * numbers), groups inside a token of letters and digits (a UUID) and 13-digit
 * Unix-millisecond times, which the API legitimately sends.
 */
export function cardNumbersIn(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/(?<![\d.])\d{13,19}(?![\d.])/g)) {
    const run = match[0];
    const n = Number(run);
    if (run.length === 13 && n >= year2000 && n <= year2100) continue;
    if (passesLuhn(run)) found.push(run);
  }
  // Groups glued to letters or digits are part of a token (the dashed groups of a request
  // id's UUID: `…ab12-4602-9324-0904…`), not a number written in groups.
  for (const match of text.matchAll(
    /(?<![\dA-Za-z])\d{4}(?:[ -]\d{4}){2,3}(?:[ -]\d{1,3})?(?![\dA-Za-z])/g,
  )) {
    const digits = match[0].replace(/[ -]/g, '');
    if (digits.length >= 13 && passesLuhn(digits)) found.push(match[0]);
  }
  return found;
}
