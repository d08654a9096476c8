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

const isDigit = (c: number) => c >= 48 && c <= 57;
/** How a card number is shown when masked: its last four digits, as the UI shows a card. */
export const maskedForm = (digits: string) => `•••• ${digits.slice(-4)}`;

/**
 * `text` with every card number in it masked to its last four digits (`•••• 7899`, as the UI
 * shows a card). A card number is a Luhn-valid run of 13-19 digits, alone or as consecutive
 * digit groups joined by single spaces or dashes (`4000 0012 3456 7899`, also inside a longer
 * grouped run). An unbroken run of more than 19 digits (a network reference number) is never a
 * card number and is left alone. Text with fewer than 13 digits costs one pass of counting;
 * the rest one pass of scanning (this runs on every string of every upstream answer).
 */
export function maskCardNumbers(text: string): string {
  if (!hasDigits(text, 13)) return text;
  const n = text.length;
  let out = '';
  let copied = 0;
  let i = 0;
  while (i < n) {
    if (!isDigit(text.charCodeAt(i))) {
      i++;
      continue;
    }
    // A run: digits, and single spaces or dashes with a digit on each side.
    const start = i;
    let digits = 0;
    let grouped = false;
    for (;;) {
      while (i < n && isDigit(text.charCodeAt(i))) {
        i++;
        digits++;
      }
      const c = text.charCodeAt(i);
      if ((c === 32 || c === 45) && isDigit(text.charCodeAt(i + 1))) {
        grouped = true;
        i++;
      } else {
        break;
      }
    }
    if (digits < 13) continue;
    const run = text.slice(start, i);
    // An unbroken run is a card number only as a whole; a grouped one, by whole groups.
    const masked = grouped
      ? maskGroupedRun(run)
      : digits <= 19 && isLuhnValid(run)
        ? maskedForm(run)
        : run;
    if (masked === run) continue;
    out += text.slice(copied, start) + masked;
    copied = i;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** Whether `text` holds at least `count` digits; stops as soon as it knows. */
function hasDigits(text: string, count: number): boolean {
  let needed = count;
  for (let i = 0; i < text.length; i++) {
    if (isDigit(text.charCodeAt(i))) {
      if (--needed === 0) return true;
    } else if (text.length - i <= needed) {
      return false;
    }
  }
  return false;
}

/** Digit groups joined by separators: every window of whole groups that is a card number. */
function maskGroupedRun(run: string): string {
  const groups = run.split(/[ -]/);
  // Spans of group indexes [first, last] that hold a card number, overlapping ones merged.
  const spans: Array<[number, number]> = [];
  for (let first = 0; first < groups.length; first++) {
    let digits = '';
    for (let last = first; last < groups.length; last++) {
      digits += groups[last];
      if (digits.length > 19) break;
      if (digits.length < 13 || !isLuhnValid(digits)) continue;
      const previous = spans.at(-1);
      if (previous && previous[1] >= first) previous[1] = Math.max(previous[1], last);
      else spans.push([first, last]);
    }
  }
  if (spans.length === 0) return run;
  // Character offset of each group in the run (groups are joined by one separator each).
  const starts: number[] = [];
  let offset = 0;
  for (const group of groups) {
    starts.push(offset);
    offset += group.length + 1;
  }
  let out = '';
  let copied = 0;
  for (const [first, last] of spans) {
    const end = (starts[last] ?? 0) + (groups[last]?.length ?? 0);
    out +=
      run.slice(copied, starts[first]) +
      maskedForm(run.slice(starts[first], end).replace(/[ -]/g, ''));
    copied = end;
  }
  return out + run.slice(copied);
}
