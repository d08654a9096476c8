// The one card-number matcher and what may stand between the digits: every kind of space, dash,
// dot, slash, underscore and colon a person (or someone hiding a number) types, alone or in
// runs, characters that show nothing, fullwidth digits; and what must stay text: dates, times,
// amounts. Every number is
// made at run time (the reference Luhn in test/reference-luhn.ts), never written out.
import { describe, expect, it } from 'vitest';
import { passesLuhn, withCheckDigit } from '../../test/reference-luhn';
import { testPan } from '../../test/test-pan';
import {
  containsCardNumber,
  digitRuns,
  findCardNumbers,
  joinsOnly,
  maskCardNumbers,
} from './card-numbers';

const pan = testPan(246_813_579);
const last4 = (n: string) => `•••• ${n.slice(-4)}`;
const inFours = (n: string, separator: string) => n.match(/.{1,4}/g)?.join(separator) ?? n;
const hex = (c: string) =>
  `U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;

/** Digits from a fixed linear congruential sequence: the same every run. */
function digitSource(seed: number) {
  let x = seed;
  return (count: number) => {
    let out = '';
    for (let i = 0; i < count; i++) {
      x = (x * 1_103_515_245 + 12_345) % 2_147_483_648;
      out += String(Math.floor(x / 65_536) % 10);
    }
    return out;
  };
}

const separators = [
  ' ', // space
  '\t',
  '\n',
  '\r',
  '\u00A0', // no-break space
  '\u1680', // ogham space mark
  '\u2002', // en space
  '\u2007', // figure space
  '\u2009', // thin space
  '\u200A', // hair space
  '\u202F', // narrow no-break space
  '\u205F', // medium mathematical space
  '\u2028', // line separator
  '\u3000', // ideographic space
  '-',
  '\u2010', // hyphen
  '\u2011', // non-breaking hyphen
  '\u2012', // figure dash
  '\u2013', // en dash
  '\u2014', // em dash
  '\u2015', // horizontal bar
  '\u2212', // minus sign
  '\uFE63', // small hyphen-minus
  '\uFF0D', // fullwidth hyphen-minus
  '.',
  '/',
  '\\',
  '_',
  '\u00B7', // middle dot
  '\u2027', // hyphenation point
  '\u30FB', // katakana middle dot
  '\uFF0E', // fullwidth full stop
  '\uFF0F', // fullwidth solidus
  '\uFF3C', // fullwidth reverse solidus
  '\uFF3F', // fullwidth low line
  '\uFF65', // halfwidth katakana middle dot
];

const invisibles = [
  '\u200B', // zero-width space
  '\u200C', // zero-width non-joiner
  '\u200D', // zero-width joiner
  '\u2060', // word joiner
  '\u00AD', // soft hyphen
  '\uFEFF', // byte order mark
  '\u202E', // right-to-left override
  '\u2066', // left-to-right isolate
  '\u0000', // NUL
  '\u001F', // unit separator
  '\u007F', // delete
  '\u0085', // next line (a C1 control)
  '\u0301', // combining acute accent
  '\uFE0F', // variation selector 16
  '\u20E3', // combining enclosing keycap
  '\u3164', // Hangul filler
  '\u{E0041}', // tag latin capital letter A (outside the BMP)
];

describe('the card-number matcher: what joins digit groups', () => {
  it.each(separators.map((s) => [hex(s), s]))(
    'a number in groups of four joined by %s is found and masked',
    (_name, separator) => {
      const text = `card ${inFours(pan, separator)} ok`;
      expect(maskCardNumbers(text)).toBe(`card ${last4(pan)} ok`);
      expect(containsCardNumber(text)).toBe(true);
      expect(findCardNumbers(text)).toContain(pan);
    },
  );

  it('a number whose groups are joined by different separators is found all the same', () => {
    const [a, b, c, d] = pan.match(/.{4}/g) ?? [];
    const text = `x ${a}.${b}\u00A0${c}_${d} y`;
    expect(maskCardNumbers(text)).toBe(`x ${last4(pan)} y`);
    expect(containsCardNumber(text)).toBe(true);
  });

  it.each(invisibles.map((c) => [hex(c), c]))(
    '%s counts as absent: inside a group, and beside a separator',
    (_name, c) => {
      const inside = `${pan.slice(0, 6)}${c}${pan.slice(6, 11)}${c}${c}${pan.slice(11)}`;
      expect(maskCardNumbers(`card ${inside} ok`)).toBe(`card ${last4(pan)} ok`);
      const besideSeparator = inFours(pan, `${c} ${c}`);
      expect(maskCardNumbers(`card ${besideSeparator} ok`)).toBe(`card ${last4(pan)} ok`);
      expect(containsCardNumber(inside)).toBe(true);
      // Between two separators it is absent too: the two are one run of separators.
      const twoSeparators = inFours(pan, ` ${c} `);
      expect(maskCardNumbers(twoSeparators)).toBe(last4(pan));
      expect(containsCardNumber(twoSeparators)).toBe(true);
    },
  );

  it('a masked number keeps the characters that show nothing after it', () => {
    expect(maskCardNumbers(`${pan}\u200B x`)).toBe(`${last4(pan)}\u200B x`);
  });

  it('fullwidth digits (an East Asian input method) are digits', () => {
    const fullwidth = [...pan].map((d) => String.fromCharCode(0xff10 + Number(d))).join('');
    expect(maskCardNumbers(`カード ${fullwidth}`)).toBe(`カード ${last4(pan)}`);
    expect(maskCardNumbers(inFours(fullwidth, '\u3000'))).toBe(last4(pan));
    expect(findCardNumbers(fullwidth)).toContain(pan);
    // The first and last digits of each range, so no digit is left out.
    const edges = withCheckDigit('90000000000000');
    const wide = [...edges].map((d) => String.fromCharCode(0xff10 + Number(d))).join('');
    expect(maskCardNumbers(wide)).toBe(last4(edges));
    expect(maskCardNumbers(edges)).toBe(last4(edges));
  });

  it('the digits of any script are digits: Arabic-Indic, Devanagari, mathematical bold and more', () => {
    // A review stored a memo of mathematical bold digits (𝟒𝟏𝟏𝟏…, which read exactly as a card
    // number) and one of Arabic-Indic digits: only ASCII and fullwidth digits were read.
    const zeros = {
      'Arabic-Indic': 0x0660,
      'Extended Arabic-Indic': 0x06f0,
      Devanagari: 0x0966,
      Bengali: 0x09e6,
      Thai: 0x0e50,
      'mathematical bold': 0x1d7ce,
      'mathematical double-struck': 0x1d7d8,
      'mathematical monospace': 0x1d7f6,
      'segmented (legacy computing)': 0x1fbf0,
    };
    const edges = withCheckDigit('90000000000000');
    for (const [script, zero] of Object.entries(zeros)) {
      const written = (n: string) =>
        [...n].map((d) => String.fromCodePoint(zero + Number(d))).join('');
      expect(maskCardNumbers(`card ${written(pan)} ok`), script).toBe(`card ${last4(pan)} ok`);
      expect(maskCardNumbers(inFours(written(pan), ' ')), script).toBe(last4(pan));
      expect(containsCardNumber(`memo ${written(pan)}`), script).toBe(true);
      expect(findCardNumbers(written(edges)), script).toContain(edges);
      // Mixed with ASCII digits, as one number.
      const half = `${pan.slice(0, 8)}${written(pan.slice(8))}`;
      expect(containsCardNumber(half), script).toBe(true);
      // What is not a card number stays text.
      expect(containsCardNumber(written('12345')), script).toBe(false);
    }
  });

  it('a fullwidth or invisible character right after the first digit is read too', () => {
    const wide = [...pan.slice(1)].map((d) => String.fromCharCode(0xff10 + Number(d))).join('');
    expect(maskCardNumbers(`${pan[0]}${wide}`)).toBe(last4(pan));
    expect(maskCardNumbers(`${pan[0]}\u200B${pan.slice(1)}`)).toBe(last4(pan));
    expect(containsCardNumber(`${pan[0]}\u200B${pan.slice(1)}`)).toBe(true);
  });

  it('exactly 13 fullwidth digits, zeros and a nine among them, are counted as 13', () => {
    const short = withCheckDigit('900000000000');
    expect(short).toHaveLength(13);
    const wide = [...short].map((d) => String.fromCharCode(0xff10 + Number(d))).join('');
    expect(maskCardNumbers(wide)).toBe(last4(short));
    expect(containsCardNumber(wide)).toBe(true);
  });

  it('the characters just outside the digits are not digits', () => {
    // '/' and ':' sit either side of ASCII 0-9; U+FF0F and U+FF1A of the fullwidth digits.
    for (const [before, after] of [
      ['/', ':'],
      ['\uFF0F', '\uFF1A'],
    ]) {
      const text = `${before}${pan.slice(0, 12)}${after}`;
      expect(digitRuns(text, 1).map((run) => run.map((g) => g.digits))).toEqual([
        [pan.slice(0, 12)],
      ]);
    }
  });

  it.each([
    ['two spaces', '  '],
    ['a tab and a space', '\t '],
    ['a spaced dash', ' - '],
    ['a no-break space and a space', '\u00A0 '],
    ['a colon', ':'],
    ['a fullwidth colon', '\uFF1A'],
    ['a colon and a space', ': '],
    ['two line breaks', '\n\n'],
    ['a spaced en dash', ' \u2013 '],
    ['a long mix', ' .-/\\_:\t\u00A0\u2009 '],
  ])('%s between the groups joins them: the number is found', (_name, joiner) => {
    const text = `memo ${inFours(pan, joiner)} ok`;
    expect(maskCardNumbers(text)).toBe(`memo ${last4(pan)} ok`);
    expect(containsCardNumber(text)).toBe(true);
    expect(findCardNumbers(text)).toContain(pan);
    expect(digitRuns(text, 13).map((run) => run.map((g) => g.digits).join(''))).toEqual([pan]);
  });

  it('a run of separators is read once, and a run that ends without a digit ends the digit run', () => {
    const text = `${inFours(pan, ' - ')} -  x 12`;
    const [run] = digitRuns(text, 13);
    expect(run?.map((g) => [g.start, g.end])).toEqual([
      [0, 4],
      [7, 11],
      [14, 18],
      [21, 25],
    ]);
    expect(digitRuns(`${text}${'1'.repeat(13)}`, 13)).toHaveLength(2);
  });

  it.each([
    ['', true],
    [' - ', true],
    ['\t\u00A0:', true],
    ['\u200B ', true],
    ['\u200B', true],
    [' x', false],
    ['5', false],
    ['\uFF15', false],
    [' ,', false],
  ])('joinsOnly(%j) is %s: only separators and what shows nothing', (text, expected) => {
    expect(joinsOnly(text)).toBe(expected);
  });

  it.each([
    ['a comma', ','],
    ['a comma and a space', ', '],
    ['a letter', 'x'],
    ['a bullet', '•'],
  ])('%s between the groups ends a run: no card number there', (_name, joiner) => {
    const text = inFours(pan, joiner);
    expect(maskCardNumbers(text)).toBe(text);
    expect(containsCardNumber(text)).toBe(false);
    expect(findCardNumbers(text)).toEqual([]);
  });
});

describe('the card-number matcher: ordinary text stays text', () => {
  /** The first `fill` (two digits, 00-99) for which the digits of `make(fill)` pass Luhn. */
  function luhnValidWith(make: (fill: string) => string): string {
    for (let i = 0; i < 100; i++) {
      const text = make(String(i).padStart(2, '0'));
      if (passesLuhn(text.replace(/\D/g, ''))) return text;
    }
    throw new Error('none found');
  }

  // Each one's digits, read as one number, pass the Luhn check: only how they are written keeps
  // them from being a card number.
  it.each([
    ['a date and time', () => luhnValidWith((s) => `paid 2026/11/26 12:30:${s} at the desk`)],
    ['an ISO timestamp', () => luhnValidWith((s) => `at 2026-11-26T12:30:${s}.123Z`)],
    ['a date range with a spaced dash', () => luhnValidWith((d) => `2026-11-26 – 2026-12-${d}`)],
    ['dates a word apart', () => luhnValidWith((d) => `from 2026/11/26 to 2026/12/${d}`)],
    ['an amount with thousands', () => luhnValidWith((c) => `USD 1,234,567,890,123.${c}`)],
    ['amounts in a list', () => luhnValidWith((c) => `12.50, 1234.56, 99.${c}`)],
  ])('%s is left alone', (_name, make) => {
    const text = make();
    expect(maskCardNumbers(text)).toBe(text);
    expect(containsCardNumber(text)).toBe(false);
  });

  it('a single date, a time or an amount has too few digits to be one', () => {
    for (const text of ['2026/11/26', '26.11.2026', '12:30:45', '1 234 567,89 €', '$1,234.56']) {
      expect(maskCardNumbers(text)).toBe(text);
    }
  });

  it('an unbroken run of more than 19 digits is a reference number, also with invisible joins', () => {
    const reference = withCheckDigit(`7${pan}00`);
    expect(maskCardNumbers(`ref ${reference}`)).toBe(`ref ${reference}`);
    expect(containsCardNumber(`ref ${reference}`)).toBe(false);
    const joined = `7\u200B${pan}00${reference.at(-1)}`;
    expect(maskCardNumbers(joined)).toBe(joined);
  });
});

describe('the card-number matcher: masked text holds none', () => {
  /** Whole-group windows of `groups` that read as a card number, as `a-b`. */
  const cardWindows = (groups: string[]) => {
    const windows: string[] = [];
    for (let a = 0; a < groups.length; a++) {
      for (let b = a; b < groups.length; b++) {
        const digits = groups.slice(a, b + 1).join('');
        if (digits.length >= 13 && digits.length <= 19 && passesLuhn(digits)) {
          windows.push(`${a}-${b}`);
        }
      }
    }
    return windows;
  };

  it('when the last four shown make a card number with the groups after them, those go too', () => {
    // Groups of 4, 4, 4, 1 and 9 digits: only groups 0-3 are a card number, but its last four
    // (three digits of group 2 and group 3) followed by group 4 are another.
    const next = digitSource(44_419);
    let groups: string[] = [];
    for (let tries = 0; ; tries++) {
      if (tries > 1_000_000) throw new Error('no such groups found');
      groups = [next(4), next(4), next(4), next(1), next(9)];
      const shown = groups.slice(0, 4).join('').slice(-4);
      if (cardWindows(groups).join() === '0-3' && passesLuhn(`${shown}${groups[4]}`)) break;
    }
    const text = `x ${groups.join(' ')} y`;
    expect(maskCardNumbers(text)).toBe(`x ${last4(groups[4] ?? '')} y`);
    expect(containsCardNumber(maskCardNumbers(text))).toBe(false);
  });

  it('a number masked inside a longer grouped run keeps the groups around it', () => {
    const text = `order 77 ${inFours(pan, '.')}.12 done`;
    expect(maskCardNumbers(text)).toBe(`order 77 ${last4(pan)}.12 done`);
  });

  it('text without one comes back as the same string', () => {
    const text = `ref 1234.5678.9012 and ${pan.slice(0, 12)}`;
    expect(maskCardNumbers(text)).toBe(text);
    expect(containsCardNumber(text)).toBe(false);
    // 16 digits, grouped or not, one check digit off: long enough, and still no card number.
    const wrong = `${pan.slice(0, -1)}${(Number(pan.at(-1)) + 1) % 10}`;
    for (const other of [
      wrong,
      inFours(wrong, '.'),
      `${wrong.slice(0, 7)}\u200B${wrong.slice(7)}`,
    ]) {
      expect(maskCardNumbers(other)).toBe(other);
      expect(containsCardNumber(other)).toBe(false);
    }
  });

  it('two card numbers sharing a group that is not four digits long are masked as one', () => {
    // Groups of 4, 4, 5, 4 and 4 digits: groups 0-2 and 2-4 are card numbers, nothing else.
    const next = digitSource(54_321);
    let groups: string[] = [];
    for (let tries = 0; ; tries++) {
      if (tries > 1_000_000) throw new Error('no such groups found');
      groups = [next(4), next(4), next(5), next(4), next(4)];
      if (cardWindows(groups).join() === '0-2,2-4') break;
    }
    const text = `x ${groups.join('-')} y`;
    expect(maskCardNumbers(text)).toBe(`x ${last4(groups[4] ?? '')} y`);
  });
});

describe('digitRuns', () => {
  it('gives each group its place in the text and its digits, and skips short runs', () => {
    const text = `a 12 b 1234.5678\u200B9-012 c`;
    expect(digitRuns(text, 12)).toEqual([
      [
        { start: 7, end: 11, digits: '1234' },
        { start: 12, end: 18, digits: '56789' },
        { start: 19, end: 22, digits: '012' },
      ],
    ]);
    expect(digitRuns(text, 13)).toEqual([]);
    expect(digitRuns(text, 2).map((run) => run.length)).toEqual([1, 3]);
  });

  it('costs nothing for text with too few digits, wherever they stand', () => {
    expect(digitRuns('1'.repeat(12), 13)).toEqual([]);
    expect(digitRuns(`${'x'.repeat(20)}${'1'.repeat(12)}`, 13)).toEqual([]);
    expect(digitRuns(`${'1'.repeat(12)}${'x'.repeat(20)}1`, 13)).toEqual([]);
  });

  it('finds a run of exactly as many digits as asked, its last digit the last of the text', () => {
    expect(digitRuns('x5', 1)).toEqual([[{ start: 1, end: 2, digits: '5' }]]);
    expect(digitRuns('x 12', 2)).toEqual([[{ start: 2, end: 4, digits: '12' }]]);
  });
});
