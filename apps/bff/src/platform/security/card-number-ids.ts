import { type DigitGroup, digitRuns, findCardNumbers, maskedForm } from './card-numbers';

/**
 * How a digit run reads where an id belongs: a card number (some 13-19 digit window of it
 * passes the Luhn check), too long to be checked window by window (more digits than any card
 * number: taken as holding one, so a long URL costs no more than a short one), or an ordinary
 * number. Runs are the card-number matcher's (`digitRuns`): groups joined by any separator it
 * knows, so `4000.0012.3456.7899` and `4000_0012_3456_7899` read as the number they are.
 */
function classify(digits: string): 'card' | 'long' | 'other' {
  if (digits.length > 19) return 'long';
  return findCardNumbers(digits).length > 0 ? 'card' : 'other';
}

const digitsOf = (run: readonly DigitGroup[]) => run.map((group) => group.digits).join('');

/**
 * True when `text` holds a card number: a Luhn-valid 13-19 digit run (grouped or not, also
 * inside a longer run), or a run of more than 19 digits, which is never an id either.
 */
export function holdsCardNumber(text: string): boolean {
  return digitRuns(text, 13).some((run) => classify(digitsOf(run)) !== 'other');
}

/**
 * `text` with every digit run that holds a card number shown as the UI shows a card
 * (`•••• 7899`, its last four digits) and every longer run as `[n digits]`, so a card number
 * typed where an id belongs can still be recorded and logged. Other digit runs stay.
 */
export function withCardNumbersMasked(text: string): string {
  let out = '';
  let copied = 0;
  for (const run of digitRuns(text, 13)) {
    const digits = digitsOf(run);
    const kind = classify(digits);
    if (kind === 'other') continue;
    const start = run[0]?.start ?? 0;
    out += text.slice(copied, start);
    out += kind === 'card' ? maskedForm(digits) : `[${digits.length} digits]`;
    copied = run.at(-1)?.end ?? start;
  }
  return out + text.slice(copied);
}
