import { datesReach } from './card-number-dates';
import { cardNumbersOfRun, type DigitGroup, digitRuns, maskedForm } from './card-numbers';

/** Digits of `groups` not read as dates and times (card-number-dates.ts). */
function undatedDigits(groups: readonly string[]): number {
  const reach = datesReach(groups);
  let count = 0;
  for (let g = 0; g < groups.length; g++) {
    const datesEnd = reach[g] as number;
    if (datesEnd >= 0) g = datesEnd;
    else count += (groups[g] as string).length;
  }
  return count;
}

/**
 * How a digit run reads where an id or a stored text belongs: a card number (some 13-19 digit
 * window of it passes the Luhn check, `cardNumbersOfRun`), too long to be checked window by
 * window (more digits than any card number besides its dates and times: taken as holding one,
 * so a long URL costs no more than a short one), or an ordinary number. Runs are the
 * card-number matcher's (`digitRuns`): groups joined by any run of separators it knows, so
 * `4000.0012.3456.7899` and `4000  0012  3456  7899` read as the number they are.
 */
function classify(run: readonly DigitGroup[]): 'card' | 'long' | 'other' {
  const groups = run.map((group) => group.digits);
  if (undatedDigits(groups) > 19) return 'long';
  return cardNumbersOfRun(groups).length > 0 ? 'card' : 'other';
}

const digitsOf = (run: readonly DigitGroup[]) => run.map((group) => group.digits).join('');

/**
 * True when `text` holds a card number: a Luhn-valid 13-19 digit run (grouped or not, also
 * inside a longer run), or a run of more than 19 digits besides its dates and times, which is
 * never an id either.
 */
export function holdsCardNumber(text: string): boolean {
  return digitRuns(text, 13).some((run) => classify(run) !== 'other');
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
    const kind = classify(run);
    if (kind === 'other') continue;
    const digits = digitsOf(run);
    const start = run[0]?.start ?? 0;
    out += text.slice(copied, start);
    out += kind === 'card' ? maskedForm(digits) : `[${digits.length} digits]`;
    copied = run.at(-1)?.end ?? start;
  }
  return out + text.slice(copied);
}
