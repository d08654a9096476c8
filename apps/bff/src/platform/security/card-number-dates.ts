// Dates and times among a run's digit groups, for the card-number matcher (card-numbers.ts).
// `2026-11-26 – 2026-12-31` or `2026/11/26 12:30:45` are one run of 14-16 digits there, and a
// window of them may pass the Luhn check. Within dates and times, a window whose digits start
// with 0 or 20 is read as text, and only such a window: no card network issues numbers
// starting 0 or 20 (the 2s are Mir's 2200-2204, BORICA's 2205 and Mastercard's 2221-2720). A
// date's year is 2000-2099 for that reason: GPN issues numbers starting 1946, UATP any number
// starting 1. Windows starting with another digit, at a date's day or a time's minutes, say,
// are read as any digits are, as is a window reaching past the dates and times.

/** A date's year: 2000-2099 (a group is digits only). */
const isYear = (group: string | undefined) => group?.length === 4 && group.startsWith('20');
/** A two-digit group from `low` to `high`. */
const isTwoDigits = (group: string | undefined, low: number, high: number) =>
  group?.length === 2 && Number(group) >= low && Number(group) <= high;

/** Whether groups `at`, `at + 1` and `at + 2` read as a date: year, month 01-12, day 01-31. */
function isDate(groups: readonly string[], at: number): boolean {
  return (
    isYear(groups[at]) && isTwoDigits(groups[at + 1], 1, 12) && isTwoDigits(groups[at + 2], 1, 31)
  );
}

/**
 * For each group of a run, the last group of the dates and times it is part of, or -1: a date,
 * then two-digit groups 00-59 (hours, minutes, seconds) and further dates, as far as they go.
 * One pass, whatever the run holds.
 */
export function datesReach(groups: readonly string[]): number[] {
  const reach = groups.map(() => -1);
  let at = 0;
  while (at < groups.length) {
    if (!isDate(groups, at)) {
      at++;
      continue;
    }
    let next = at + 3;
    for (;;) {
      if (isDate(groups, next)) next += 3;
      else if (isTwoDigits(groups[next], 0, 59)) next++;
      else break;
    }
    reach.fill(next - 1, at, next);
    at = next;
  }
  return reach;
}

/** Whether digits from `at` start a number no card network issues: 0… or 20…. */
export const unissued = (digits: string, at = 0) =>
  digits[at] === '0' || digits.startsWith('20', at);
