import { datesReach, unissued } from './card-number-dates';

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

/** How a card number is shown when masked: its last four digits, as the UI shows a card. */
export const maskedForm = (digits: string) => `•••• ${digits.slice(-4)}`;

// The one matcher for card numbers. A card number is written as digits, alone or in groups,
// and this file decides, once for the masking, the audit trail's guard, incoming ids and the
// texts people store, what joins two groups:
// - any run of separators: white space of every kind (two spaces, a tab, U+00A0 then a space,
//   the thin and narrow no-break and ideographic spaces, line breaks…), dashes (hyphen,
//   non-breaking hyphen, figure, en and em dashes, fullwidth hyphen…) and the minus sign,
//   `.` `/` `\` `_` `:`, the middle dots and the fullwidth forms of these, in any number and
//   mix: `4000  0012`, `4000 - 0012`, `4000:0012` and `4000\t0012` are all one run.
// - characters that show nothing (zero-width spaces and joiners, soft hyphen, BOM, bidi
//   controls, other control characters, combining marks) count as absent: `4000<U+200B>0012`
//   reads as 40000012, which is what a reader sees.
// Not separators: `,` (amounts: 1,234,567) and letters (an ISO time's `T`). Digits are ASCII or
// the decimal digits of any script, each read as its value (Unicode's `Nd`: fullwidth, what an
// East Asian input method types; Arabic-Indic ٤١١١; mathematical bold 𝟒𝟏𝟏𝟏, which read exactly
// as a card number).
// Dates and times are kept from being read as card numbers by what they are, not by what
// joins them: within dates and times (`2026-11-26 – 2026-12-31`, `2026/11/26 12:30:45`, a
// year 2000-2099), a window whose digits start with 0 or 20 is text, as no card network issues
// such numbers (card-number-dates.ts). Any other window, a date's digits in it or not, is
// read as usual.

/** A character that joins two digit groups (any run of them, with nothing visible besides). */
const SEPARATOR = /[\s\p{Pd}\u2212./\\_:\u00B7\u2027\u30FB\uFF0E\uFF0F\uFF1A\uFF3C\uFF3F\uFF65]/u;
/**
 * What a scan must see past: a digit of another script (read as its ASCII digit) or a character
 * that shows nothing, white space aside (read as absent).
 */
const SPECIAL =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it skips.
  /((?=\p{Nd})[^0-9])|[\0-\x08\x0E-\x1F\x7F-\x9F\p{Cf}\p{M}\p{Default_Ignorable_Code_Point}]/gu;

const DECIMAL_DIGIT = /^\p{Nd}$/u;
/** Each code point asked about: its digit's value, or -1 (a few thousand kept at most). */
const digitValues = new Map<number, number>();
/**
 * The value of the character `code` as a decimal digit of any script, or -1: Unicode encodes
 * each script's digits as a range of ten, 0 to 9 in order, so a digit's value is how far it
 * stands from the start of its run of digits, modulo ten.
 */
function digitValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  let value = digitValues.get(code);
  if (value === undefined) {
    if (!DECIMAL_DIGIT.test(String.fromCodePoint(code))) value = -1;
    else {
      let start = code;
      while (DECIMAL_DIGIT.test(String.fromCodePoint(start - 1))) start--;
      value = (code - start) % 10;
    }
    if (digitValues.size < 4096) digitValues.set(code, value);
  }
  return value;
}

/**
 * ASCII separators, read from the pattern once: most text is ASCII, and a table look-up keeps
 * the check cheap between the digits of dates and amounts; other characters ask the pattern.
 */
const asciiSeparator = new Uint8Array(128);
for (const c of asciiSeparator.keys()) {
  if (SEPARATOR.test(String.fromCharCode(c))) asciiSeparator[c] = 1;
}
/** Whether the character `c` joins two digit groups. */
const joins = (c: number) =>
  c < 128 ? asciiSeparator[c] === 1 : SEPARATOR.test(String.fromCharCode(c));

const isDigit = (c: number) => c >= 48 && c <= 57;
/**
 * Whether `text` has a digit at `i`. Never reads past the end: V8 serves such a read on a slow
 * path, which made a scan several times slower.
 */
const digitAt = (text: string, i: number) => i < text.length && isDigit(text.charCodeAt(i));

/**
 * `text` as a scan reads it, when it holds fullwidth digits or characters that show nothing:
 * those digits as ASCII, those characters left out, and where each character of the result
 * stood in `text`. Undefined for the usual text, which is read as it is.
 */
function normalized(text: string): { view: string; at: number[] } | undefined {
  if (text.search(SPECIAL) === -1) return undefined;
  let view = '';
  const at: number[] = [];
  let copied = 0;
  for (const match of text.matchAll(SPECIAL)) {
    for (let k = copied; k < match.index; k++) at.push(k);
    view += text.slice(copied, match.index);
    const digit = match[1];
    if (digit) {
      at.push(match.index);
      view += String.fromCharCode(48 + digitValue(digit.codePointAt(0) as number));
    }
    copied = match.index + match[0].length;
  }
  for (let k = copied; k < text.length; k++) at.push(k);
  return { view: view + text.slice(copied), at };
}

/**
 * Whether `text` holds only separators and characters that show nothing: what may stand
 * between a digit group and the next one of its run.
 */
export function joinsOnly(text: string): boolean {
  const view = normalized(text)?.view ?? text;
  for (let i = 0; i < view.length; i++) if (!joins(view.charCodeAt(i))) return false;
  return true;
}

/** One group of digits in a run: where it starts and ends in the text, and its digits. */
export interface DigitGroup {
  start: number;
  end: number;
  digits: string;
}

/**
 * The digit runs of `text` holding at least `minDigits` digits, each as its digit groups: a
 * group is digits, a run is groups joined by runs of separators (what shows nothing aside).
 * Text with fewer digits costs one pass of counting, the rest a pass or two of scanning; no
 * backtracking: a character is looked at once as a separator at most.
 */
export function digitRuns(text: string, minDigits: number): DigitGroup[][] {
  const runs: DigitGroup[][] = [];
  if (!hasDigits(text, minDigits)) return runs;
  const special = normalized(text);
  const view = special?.view ?? text;
  const at = special?.at;
  let i = 0;
  while (i < view.length) {
    if (!isDigit(view.charCodeAt(i))) {
      i++;
      continue;
    }
    // Where the run's groups start and end, as found; objects only for a run long enough.
    const bounds: number[] = [];
    let count = 0;
    for (;;) {
      const start = i;
      while (digitAt(view, i)) i++;
      bounds.push(start, i);
      count += i - start;
      while (i < view.length && joins(view.charCodeAt(i))) i++;
      // Separators not followed by a digit end the run; none of them is a digit to scan again.
      if (!digitAt(view, i)) break;
    }
    if (count < minDigits) continue;
    const run: DigitGroup[] = [];
    for (let b = 0; b < bounds.length; b += 2) {
      const start = bounds[b] ?? 0;
      const end = bounds[b + 1] ?? 0;
      const digits = view.slice(start, end);
      // A group ends after its last digit, which beyond the first plane (𝟒) is two code units.
      const last = at?.[end - 1] ?? 0;
      run.push(
        at
          ? {
              start: at[start] ?? 0,
              end: last + ((text.codePointAt(last) ?? 0) > 0xffff ? 2 : 1),
              digits,
            }
          : { start, end, digits },
      );
    }
    runs.push(run);
  }
  return runs;
}

/** Whether `text` holds at least `count` digits (of any script); stops once it knows. */
function hasDigits(text: string, count: number): boolean {
  let needed = count;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // A digit of another script (the first, Arabic-Indic zero, is U+0660; one past the first
    // plane is asked of its pair's first half).
    const digit = c < 0x660 ? isDigit(c) : digitValue(text.codePointAt(i) as number) >= 0;
    if (digit && --needed === 0) return true;
  }
  return false;
}

/**
 * The last group of the longest card number starting at group `first`, or -1. Windows ending
 * at or before `datesEnd` are text (`datesEnd`, card-number-dates.ts).
 */
function lastCardGroup(groups: readonly string[], first: number, datesEnd: number): number {
  let digits = '';
  let found = -1;
  for (let last = first; last < groups.length; last++) {
    digits += groups[last];
    if (digits.length > 19) break;
    if (digits.length >= 13 && last > datesEnd && isLuhnValid(digits)) found = last;
  }
  return found;
}

/**
 * The last group a window starting at group `g` may end at and be text (-1 when none): within
 * dates and times (`reach`, card-number-dates.ts), when its digits start with 0 or 20.
 */
const textEnd = (groups: readonly string[], reach: readonly number[], g: number) =>
  unissued(groups[g] as string) ? (reach[g] as number) : -1;

/** A stretch of a run's groups to mask, and the last four digits it shows. */
interface CardSpan {
  first: number;
  last: number;
  shown: string;
}

/**
 * The card numbers of one run, left to right: windows of whole groups, 13-19 digits, passing
 * the Luhn check (a lone group is such a window, so an unbroken run of more than 19 digits, a
 * network reference, never is one). Windows that overlap are one span. A masked span shows
 * its last four digits, which may make a card number with the groups after it: the span then
 * stands as one group of those four and the search goes on from it, so the masked text holds
 * no card number either.
 */
function cardSpans(run: readonly DigitGroup[]): CardSpan[] {
  const groups = run.map((group) => group.digits);
  // Where the dates and times are, as written; whether a window is text, from its digits as
  // they stand (a group replaced below by the last four digits a span shows).
  const reach = datesReach(groups);
  const spans: CardSpan[] = [];
  let first = 0;
  while (first < groups.length) {
    let last = lastCardGroup(groups, first, textEnd(groups, reach, first));
    if (last < 0) {
      first++;
      continue;
    }
    // Windows starting inside the span and ending past it make it longer.
    for (let inner = first; inner <= last; inner++) {
      last = Math.max(last, lastCardGroup(groups, inner, textEnd(groups, reach, inner)));
    }
    const shown = groups
      .slice(first, last + 1)
      .join('')
      .slice(-4);
    const previous = spans.at(-1);
    // Starting from the four digits a span shows: the same span, grown.
    if (previous?.last === first) Object.assign(previous, { last, shown });
    else spans.push({ first, last, shown });
    groups[last] = shown;
    first = last;
  }
  return spans;
}

/**
 * `text` with every card number in it masked to its last four digits (`•••• 7899`, as the UI
 * shows a card): a Luhn-valid run of 13-19 digits, alone or as consecutive digit groups
 * (`4000 0012 3456 7899`, `4000.0012.3456.7899`, also inside a longer grouped run), whatever
 * joins the groups (see the separators above). An unbroken run of more than 19 digits (a
 * network reference number) is never a card number and is left alone. This runs on every
 * string of every upstream answer: text with fewer than 13 digits costs one pass of counting.
 */
export function maskCardNumbers(text: string): string {
  let out = '';
  let copied = 0;
  for (const run of digitRuns(text, 13)) {
    for (const { first, last, shown } of cardSpans(run)) {
      out += text.slice(copied, (run[first] as DigitGroup).start) + maskedForm(shown);
      copied = (run[last] as DigitGroup).end;
    }
  }
  return out + text.slice(copied);
}

/** Whether `text` holds a card number as `maskCardNumbers` finds them (the audit's guard). */
export function containsCardNumber(text: string): boolean {
  return digitRuns(text, 13).some((run) => {
    const groups = run.map((group) => group.digits);
    const reach = datesReach(groups);
    return groups.some((_, g) => lastCardGroup(groups, g, textEnd(groups, reach, g)) >= 0);
  });
}

/**
 * Every Luhn-valid 13-19 digit window of a run's digits, group bounds or not (also inside
 * longer runs): anything that could be a card number, for text that must hold none. Within
 * dates and times, a window starting with 0 or 20 is text, as for the masking, and so is one
 * starting inside a year: digits glued inside a date, which the masking never reads either.
 */
export function cardNumbersOfRun(groups: readonly string[]): string[] {
  const digits = groups.join('');
  const reach = datesReach(groups);
  const groupEnds: number[] = [];
  for (const group of groups) groupEnds.push((groupEnds.at(-1) ?? 0) + group.length);
  // For each digit: where the dates and times it is in end (0 outside them: no window ends
  // there), and whether it is in a year (the only groups of four there).
  const datesEnd = groups.flatMap((group, g) =>
    Array<number>(group.length).fill(groupEnds[reach[g] as number] ?? 0),
  );
  const inYear = groups.flatMap((group) => Array<boolean>(group.length).fill(group.length === 4));
  const found: string[] = [];
  for (let start = 0; start + 13 <= digits.length; start++) {
    const textEnd = unissued(digits, start) || inYear[start] ? (datesEnd[start] as number) : 0;
    for (let length = 13; length <= 19 && start + length <= digits.length; length++) {
      const candidate = digits.slice(start, start + length);
      if (start + length > textEnd && isLuhnValid(candidate)) found.push(candidate);
    }
  }
  return found;
}

/** `cardNumbersOfRun` over every digit run of `text`. */
export function findCardNumbers(text: string): string[] {
  return digitRuns(text, 13).flatMap((run) => cardNumbersOfRun(run.map((group) => group.digits)));
}
