// Dates and times among digit groups: read as text by every check (masking, the audit's guard,
// ids and stored texts) only from a date's first digit to the end of the dates and times from
// there; every other window is read as any digits are. Every number is made at run time with
// the reference Luhn (test/reference-luhn.ts), never written out.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { passesLuhn, withCheckDigit } from '../../test/reference-luhn';
import { datesReach, unissued } from './card-number-dates';
import { holdsCardNumber, withCardNumbersMasked } from './card-number-ids';
import { containsCardNumber, findCardNumbers, maskCardNumbers } from './card-numbers';

const seed = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
console.log(`card-number dates: fast-check seed ${seed} (FC_SEED=${seed} to replay)`);

const last4 = (n: string) => `•••• ${n.slice(-4)}`;
const two = (n: number) => String(n).padStart(2, '0');
const digitsOf = (text: string) => text.replace(/\D/g, '');

/** Every check reads `text` as holding no card number. */
function readAsText(text: string) {
  expect(maskCardNumbers(text), text).toBe(text);
  expect(containsCardNumber(text), text).toBe(false);
  expect(findCardNumbers(text), text).toEqual([]);
  expect(holdsCardNumber(text), text).toBe(false);
  expect(withCardNumbersMasked(text), text).toBe(text);
}

/** A date and a time, `hh:mm:ss`, whose 14 digits pass the Luhn check (the seconds' last digit). */
function luhnValidDateTime(date: string, hhmm: string, joiner = ' '): string {
  const body = `${digitsOf(date)}${digitsOf(hhmm)}0`;
  return `${date}${joiner}${hhmm}:0${withCheckDigit(body).at(-1)}`;
}

describe('datesReach', () => {
  it('gives each group of dates and times the last group they reach, and others -1', () => {
    // 7 | 2026 11 26 12 30 2026 12 31 | 123 | 2099 01 01 | 2026 13 01
    const groups = ['7', '2026', '11', '26', '12', '30', '2026', '12', '31', '123'];
    expect(datesReach(groups)).toEqual([-1, 8, 8, 8, 8, 8, 8, 8, 8, -1]);
    expect(datesReach(['2099', '01', '01', '2026', '13', '01'])).toEqual([2, 2, 2, -1, -1, -1]);
    expect(datesReach(['2026', '11'])).toEqual([-1, -1]);
    expect(datesReach([])).toEqual([]);
  });

  it.each([
    ['a year before 2000', ['1999', '12', '31'], false],
    ['the first year read', ['2000', '01', '01'], true],
    ['the last year read', ['2099', '12', '31'], true],
    ['a year after 2099', ['2100', '01', '01'], false],
    ['a year of five digits', ['20261', '01', '01'], false],
    ['five digits ending as a year', ['12026', '01', '01'], false],
    ['a year of three digits', ['202', '01', '01'], false],
    ['month 00', ['2026', '00', '10'], false],
    ['month 13', ['2026', '13', '10'], false],
    ['a month of one digit', ['2026', '1', '10'], false],
    ['a month of three digits', ['2026', '011', '10'], false],
    ['day 00', ['2026', '10', '00'], false],
    ['day 32', ['2026', '10', '32'], false],
    ['a day of one digit', ['2026', '10', '1'], false],
  ])('%s: %j is a date: %s', (_name, groups, isDate) => {
    expect(datesReach(groups)[0]).toBe(isDate ? 2 : -1);
  });

  it.each([
    ['00', true],
    ['59', true],
    ['60', false],
    ['5', false],
    ['059', false],
  ])('after a date, the group %s is a time part: %s', (part, kept) => {
    expect(datesReach(['2026', '10', '10', part, '00'])[0]).toBe(kept ? 4 : 2);
  });
});

describe('unissued', () => {
  it.each([
    ['0123', 0, true],
    ['2026', 0, true],
    ['2126', 0, false],
    ['1946', 0, false],
    ['2', 0, false],
    ['x20', 1, true],
    ['x02', 1, true],
    ['x21', 1, false],
  ])('%s from %i starts a number no network issues: %s', (digits, at, expected) => {
    expect(unissued(digits, at)).toBe(expected);
  });
});

describe('dates and times are text', () => {
  const year = fc.integer({ min: 2000, max: 2099 }).map(String);
  const date = fc
    .tuple(year, fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 31 }))
    .chain(([y, m, d]) =>
      fc.constantFrom('-', '/', '.').map((s) => `${y}${s}${two(m)}${s}${two(d)}`),
    );
  const hhmm = fc
    .tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }))
    .map(([h, m]) => `${two(h)}:${two(m)}`);
  const seconds = fc.integer({ min: 0, max: 59 }).map((s) => `:${two(s)}`);
  const between = fc.constantFrom(' ', '  ', ' – ', ' - ', '\t', '\u00A0 ', ' — ', '/', '-', ' / ');

  it('a date and a time, a date range, a time range: text however joined (property)', () => {
    const text = fc.oneof(
      fc.tuple(date, between, date).map((parts) => parts.join('')),
      fc.tuple(date, between, hhmm, seconds).map((parts) => parts.join('')),
      fc.tuple(date, between, hhmm, between, hhmm).map((parts) => parts.join('')),
    );
    fc.assert(
      fc.property(text, fc.constantFrom('', 'paid ', 'trip '), (t, before) => {
        readAsText(`${before}${t} ok`);
      }),
      { seed, numRuns: 2_000 },
    );
  });

  it('within dates and times, every window starting with 0 or 20 is text (property)', () => {
    // Windows from a month, a day or a time part 01-09 or 20 are text; others may not be.
    const text = fc
      .tuple(date, between, hhmm, seconds, between, date, between, hhmm)
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(text, (t) => {
        for (const found of findCardNumbers(t)) {
          expect(found[0] === '0' || found.startsWith('20'), `${t}: ${found}`).toBe(false);
        }
        const masked = maskCardNumbers(t);
        const shown = masked.match(/•••• (\d{4})/);
        if (shown) expect(containsCardNumber(t), t).toBe(true);
      }),
      { seed, numRuns: 1_000 },
    );
  });

  it('the examples of the matcher’s rule are text', () => {
    for (const text of [
      luhnValidDateTime('2026/11/26', '12:30'),
      luhnValidDateTime('2026-11-26', '12:30', '  '),
      luhnValidDateTime('2000.01.01', '00:00', ' \u2013 '),
    ]) {
      readAsText(text);
    }
    expect(passesLuhn(digitsOf(luhnValidDateTime('2026/11/26', '12:30')))).toBe(true);
  });
});

describe('dates do not hide card numbers', () => {
  const pan = withCheckDigit('491761234567890');

  it('a card number before or after a date is masked, the date kept', () => {
    // Day 27: 27 and the card number's 16 digits fail the Luhn check (26 and them would not).
    const before = `2026-11-27 ${pan.match(/.{4}/g)?.join('  ')}`;
    expect(maskCardNumbers(before)).toBe(`2026-11-27 ${last4(pan)}`);
    // A date whose digits make no card number with the number's last groups.
    const after = Array.from(
      { length: 50 },
      (_, y) => `${pan.match(/.{4}/g)?.join(':')} ${2026 + y}-11-26 12:30`,
    ).find((text) => maskCardNumbers(text) === `${last4(pan)}${text.slice(19)}`) as string;
    expect(after).toMatch(/^\d{4}:/);
    for (const text of [before, after]) {
      expect(containsCardNumber(text)).toBe(true);
      expect(holdsCardNumber(text)).toBe(true);
      expect(findCardNumbers(text)).toContain(pan);
    }
  });

  it.each([
    ['a year before 2000 (GPN issues numbers starting 1946)', '1946-12-31', '23:59'],
    ['a year after 2099', '2100-01-01', '00:00'],
    ['month 13', '2026-13-01', '10:00'],
    ['month 00', '2026-00-01', '10:00'],
    ['day 32', '2026-01-32', '10:00'],
    ['day 00', '2026-01-00', '10:00'],
    ['minutes 60', '2026-01-01', '10:60'],
  ])(
    'with %s it is no date: 14 digits passing the Luhn check are a card number',
    (_n, date, hhmm) => {
      const text = luhnValidDateTime(date, hhmm);
      expect(maskCardNumbers(`x ${text} y`)).toBe(`x ${last4(digitsOf(text))} y`);
      expect(containsCardNumber(text)).toBe(true);
      expect(holdsCardNumber(text)).toBe(true);
      expect(findCardNumbers(text)).toContain(digitsOf(text));
    },
  );

  it('a window from a date’s year that reaches past its dates and times is read', () => {
    // A date, a time, then a three-digit group: 17 digits, the last group no time part.
    const body = '20261126123045';
    const text = `2026-11-26 12:30:45 ${withCheckDigit(`${body}12`).slice(-3)}`;
    expect(passesLuhn(digitsOf(text))).toBe(true);
    expect(maskCardNumbers(text)).toBe(last4(digitsOf(text)));
    expect(containsCardNumber(text)).toBe(true);
    expect(holdsCardNumber(text)).toBe(true);
  });

  it.each([
    ['a day', '2026-11-26 12:30:0D 2026-11-27', 6],
    // Day 25, not 26: 26 before an even count of digits keeps their Luhn sum.
    ['an hour', '2026-11-25 23:30:0D 2026-11-27', 8],
    ['minutes', '2026-11-25 12:59:0D 2026-11-27 10', 10],
  ])(
    'a window starting at %s, neither 0… nor 20…, is read though it lies among dates',
    (_n, template, from) => {
      // The seconds' last digit makes the window from the day, hour or minutes pass.
      const text = [...'0123456789']
        .map((d) => template.replace('D', d))
        .find((t) => passesLuhn(digitsOf(t).slice(from))) as string;
      const window = digitsOf(text).slice(from);
      expect(window.length).toBeGreaterThanOrEqual(13);
      expect(containsCardNumber(text), text).toBe(true);
      expect(findCardNumbers(text)).toContain(window);
      expect(holdsCardNumber(text)).toBe(true);
      expect(maskCardNumbers(text)).toMatch(new RegExp(`•••• ${window.slice(-4)}$`));
      expect(containsCardNumber(maskCardNumbers(text))).toBe(false);
    },
  );

  it('ids and stored texts read windows starting inside a year as text, and only within the dates', () => {
    // 2026-11-26 – 2026-12-DD: the windows from the year's third and fourth digits.
    for (let day = 1; day <= 31; day++) {
      readAsText(`2026-11-26 – 2026-12-${two(day)}`);
    }
    // Past the dates, a window from inside a year is read: 26 11 26 + a card's remaining digits.
    const card = withCheckDigit('261126491761234');
    const text = `2026-11-26 ${card.slice(6, 10)} ${card.slice(10)}`;
    expect(findCardNumbers(text)).toContain(card);
    expect(holdsCardNumber(text)).toBe(true);
  });

  it('more than 19 digits besides the dates and times is still taken as holding one', () => {
    const twenty = '1234 5678 9012 3456 7890';
    expect(holdsCardNumber(`${twenty} 2026-11-26`)).toBe(true);
    expect(withCardNumbersMasked(`ref ${twenty} 2026-11-26`)).toBe('ref [28 digits]');
    // 19 digits besides a date: read window by window, not taken as one whatever they hold.
    for (const text of [
      '1234 5678 9012 3456 789 2026-11-26',
      '2026-11-26 1234 5678 9012 3456 789',
    ]) {
      expect(withCardNumbersMasked(text)).not.toMatch(/\[\d+ digits\]/);
    }
    // Three dates, 24 digits, none of their windows a card number: no run too long either.
    const threeDates = Array.from(
      { length: 28 },
      (_, d) => `2026-11-${two(d + 1)} – 2026-12-31 – 2027-01-15`,
    ).find((text) => findCardNumbers(text).length === 0) as string;
    expect(holdsCardNumber(threeDates)).toBe(false);
    expect(withCardNumbersMasked(threeDates)).toBe(threeDates);
  });
});
