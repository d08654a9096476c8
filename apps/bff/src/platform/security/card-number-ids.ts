import { findCardNumbers, maskedForm } from './card-numbers';

/** A digit run long enough to hold a card number, with the usual space or dash grouping. */
const DIGIT_RUN = /\d(?:[ -]?\d){12,}/g;

/**
 * How a run reads: a card number (some 13-19 digit window of it passes the Luhn check), too
 * long to be checked window by window (more digits than any card number: taken as holding one,
 * so a long URL costs no more than a short one), or an ordinary number.
 */
function classify(run: string): 'card' | 'long' | 'other' {
  const digits = run.replace(/[ -]/g, '');
  if (digits.length > 19) return 'long';
  return findCardNumbers(digits).length > 0 ? 'card' : 'other';
}

/**
 * True when `text` holds a card number: a Luhn-valid 13-19 digit run (grouped or not, also
 * inside a longer run), or a run of more than 19 digits, which is never an id either.
 */
export function holdsCardNumber(text: string): boolean {
  for (const [run] of text.matchAll(DIGIT_RUN)) {
    if (classify(run) !== 'other') return true;
  }
  return false;
}

/**
 * `text` with every digit run that holds a card number shown as the UI shows a card
 * (`•••• 7899`, its last four digits) and every longer run as `[n digits]`, so a card number
 * typed where an id belongs can still be recorded and logged. Other digit runs stay.
 */
export function withCardNumbersMasked(text: string): string {
  return text.replace(DIGIT_RUN, (run) => {
    const kind = classify(run);
    const digits = run.replace(/[ -]/g, '');
    if (kind === 'card') return maskedForm(digits);
    return kind === 'long' ? `[${digits.length} digits]` : run;
  });
}
