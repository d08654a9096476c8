// Its own Luhn, not the BFF's guard: a fault in the guard must not blind the scan too.
import { passesLuhn } from './reference-luhn';

const year2000 = 946_684_800_000;
const year2100 = 4_102_444_800_000;

/**
 * What looks like a card number in `text`: a standalone Luhn-valid run of 13-19 digits, or
 * one written in groups of four. Not flagged: runs inside longer digit strings (reference
 * numbers), groups inside a token of letters and digits (a UUID) and 13-digit
 * Unix-millisecond times, which the API legitimately sends, and runs inside a hex digest
 * (the audit chain's SHA-256 hashes, trace ids): in 64 random hex characters a Luhn-valid run
 * of 13 or more digits turns up about once in two hundred hashes.
 */
export function cardNumbersIn(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/(?<![\d.])\d{13,19}(?![\d.])/g)) {
    const run = match[0];
    const n = Number(run);
    if (run.length === 13 && n >= year2000 && n <= year2100) continue;
    if (insideHexDigest(text, match.index, match.index + run.length)) continue;
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

const hexDigit = /[0-9a-f]/;

/** Whether text[start, end) lies in a lower-case hex token of 32 or more characters. */
function insideHexDigest(text: string, start: number, end: number): boolean {
  let from = start;
  let to = end;
  while (from > 0 && hexDigit.test(text.charAt(from - 1))) from--;
  while (to < text.length && hexDigit.test(text.charAt(to))) to++;
  return to - from >= 32 && to - from > end - start;
}
