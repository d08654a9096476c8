import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cardPatchBodySchema } from './cards';
import { nameProblem, visibleNameSchema } from './names';
import { subAccountCreateBodySchema } from './sub-accounts';

const directionControls = [
  ...Array.from({ length: 5 }, (_, i) => 0x202a + i),
  ...Array.from({ length: 4 }, (_, i) => 0x2066 + i),
  0x200e,
  0x200f,
  0x061c,
].map((code) => [code.toString(16).toUpperCase().padStart(4, '0'), String.fromCodePoint(code)]);

const invisibleOnly = [
  ['zero-width spaces', '\u200B\u200B'],
  ['joiners and a word joiner', '\u200C\u200D\u2060'],
  ['a byte-order mark between spaces', ' \uFEFF '],
  ['combining marks alone', '\u0301\u0308'],
  ['variation selectors', '\uFE0F\uFE0E'],
  ['Hangul fillers', '\u3164\u115F'],
  ['a blank braille pattern', '\u2800'],
  ['ideographic spaces', '\u3000\u3000'],
  ['a soft hyphen', '\u00AD'],
] as const;

function messagesOf(result: { success: boolean; error?: { issues: { message: string }[] } }) {
  return (result.error?.issues ?? []).map((issue) => issue.message).join('; ');
}

describe('names a person gives to a card or a sub account', () => {
  it.each(directionControls)('refuse the text-direction control U+%s', (_code, control) => {
    const result = visibleNameSchema.safeParse(`Travel${control}lavarT`);
    expect(result.success).toBe(false);
    expect(messagesOf(result)).toContain('text-direction control');
  });

  it.each(invisibleOnly)('refuse a name of %s only', (_what, name) => {
    const result = visibleNameSchema.safeParse(name);
    expect(result.success).toBe(false);
    expect(messagesOf(result)).toMatch(/visible character|must not be empty/);
  });

  it.each([
    ['a zero-width space inside a word', 'Market\u200Bing'],
    ['a zero-width joiner between Latin letters', 'urg\u200Dent'],
    ['a word joiner', 'urg\u2060ent'],
    ['a soft hyphen inside a word', 'Trav\u00ADel'],
    ['a non-joiner at the end', 'Travel\u200C'],
    ['a variation selector after a letter', 'Trave\uFE0Fl'],
    ['a byte-order mark inside a word', 'Ops\uFEFFteam'],
  ])('refuse %s (it looks like another name)', (_what, name) => {
    const result = visibleNameSchema.safeParse(name);
    expect(result.success).toBe(false);
    expect(messagesOf(result)).toContain('invisible characters');
    expect(nameProblem(name)).toMatch(/invisible characters/);
  });

  it.each([
    ['plain text', 'Team travel', 'Team travel'],
    ['a non-joiner between Persian letters', 'می\u200Cخواهم', null],
    ['an emoji with a variation selector', 'Coffee \u2615\uFE0F', null],
    ['accents and a combining mark on a letter', 'Café e\u0301', 'Café e\u0301'],
    ['right-to-left script', 'נסיעות', 'נסיעות'],
    ['an emoji sequence with joiners', '\u{1F468}\u200D\u{1F469}\u200D\u{1F467} fund', null],
    ['surrounding spaces, trimmed', '  Ops  ', 'Ops'],
  ])('accept %s', (_what, name, stored) => {
    expect(visibleNameSchema.parse(name)).toBe(stored ?? name);
  });

  it('apply to the card PATCH body and the sub-account create body', () => {
    const patch = cardPatchBodySchema.safeParse({ name: '\u202Egnp.exe' });
    expect(patch.success).toBe(false);
    expect(patch.error?.issues.some((i) => i.path.join('.') === 'name')).toBe(true);
    expect(messagesOf(patch)).toContain('text-direction control');

    const created = subAccountCreateBodySchema.safeParse({ name: '\u200B\u2060' });
    expect(created.success).toBe(false);
    expect(messagesOf(created)).toContain('visible character');
    expect(subAccountCreateBodySchema.parse({ name: 'Marketing' })).toEqual({ name: 'Marketing' });
  });
});

describe('the plain-words check a form runs before sending a name', () => {
  it('says what to fix for each kind of refused name', () => {
    expect(nameProblem('   ')).toBe('Enter a name.');
    expect(nameProblem('x'.repeat(101))).toBe('Use at most 100 characters.');
    expect(nameProblem('Tra\tvel')).toMatch(/control characters/);
    expect(nameProblem('Travel\u202Eredli')).toMatch(/text-direction/);
    expect(nameProblem('\u200B\u2060')).toBe('Use at least one visible letter, digit or sign.');
    expect(nameProblem('  Travel  ')).toBeUndefined();
    expect(nameProblem('مالية\u200Cالشركة')).toBeUndefined();
  });

  it('refuses exactly what the API refuses', () => {
    const seed = Date.now();
    console.log('nameProblem property seed:', seed);
    const pieces = fc.constantFrom(
      'a',
      'Z',
      '7',
      ' ',
      '\t',
      '\u0000',
      '\u200B',
      '\u200D',
      '\u202E',
      '\u2067',
      '\u0301',
      '\uFEFF',
      '\u3000',
      '\u2800',
      'é',
      '😀',
      '\uD800',
      'x'.repeat(60),
    );
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 6 }), (parts) => {
        const name = parts.join('');
        expect(nameProblem(name) === undefined).toBe(visibleNameSchema.safeParse(name).success);
      }),
      { seed, numRuns: 2_000 },
    );
  });
});
