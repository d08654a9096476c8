import { describe, expect, it } from 'vitest';
import {
  addTags,
  fieldsChanged,
  layOver,
  memoProblem,
  type NotesValues,
  reviewOnApply,
  tagProblem,
} from './notes-form';

const notes = (overrides: Partial<NotesValues> = {}): NotesValues => ({
  memo: '',
  categoryId: null,
  tags: [],
  ...overrides,
});

describe('notes form', () => {
  it('sends only what differs, trimmed, each tag once whatever its case', () => {
    const seen = notes({ memo: 'Lunch', categoryId: 'cat_a', tags: ['q3'] });
    expect(fieldsChanged(seen, seen)).toEqual({});
    expect(fieldsChanged(seen, { ...seen, memo: '  Lunch \n' })).toEqual({});
    expect(
      fieldsChanged(seen, notes({ memo: 'Dinner', categoryId: null, tags: ['q3', 'Q3', 'x'] })),
    ).toEqual({
      memo: 'Dinner',
      categoryId: null,
      tags: ['q3', 'x'],
    });
  });

  it('lays the change over the current notes: what was changed wins, added and removed tags apply to the current tags', () => {
    const seen = notes({ memo: 'Lunch', categoryId: 'cat_a', tags: ['q3', 'old'] });
    const current = notes({
      memo: 'Team lunch',
      categoryId: 'cat_b',
      tags: ['q3', 'old', 'berlin'],
    });
    const mine = notes({ memo: 'Client lunch', categoryId: 'cat_a', tags: ['q3', 'travel'] });
    expect(layOver(seen, current, mine)).toEqual({
      memo: 'Client lunch',
      categoryId: 'cat_b',
      tags: ['q3', 'berlin', 'travel'],
    });
    // Nothing changed by the person: the current notes as they are.
    expect(layOver(seen, current, seen)).toEqual(current);
  });

  it('says in plain words why a memo or a tag cannot be saved', () => {
    expect(memoProblem('a\nb\tc')).toBeUndefined();
    expect(memoProblem(`${'m'.repeat(2000)}   `)).toBeUndefined();
    expect(memoProblem('m'.repeat(2001))).toMatch(/2,001 characters long/);
    expect(memoProblem('pay\u202Eyap')).toMatch(/text-direction/);
    expect(memoProblem('Booked by phone, CVV: 123')).toMatch(/security code/);
    expect(tagProblem('urg\u200Bent', [])).toMatch(/invisible characters/);
    expect(tagProblem('urgent', [])).toBeUndefined();
    expect(tagProblem('x'.repeat(40), [])).toBeUndefined();
    expect(tagProblem('x'.repeat(41), [])).toMatch(/at most 40 characters/);
    expect(tagProblem('\u200B', [])).toMatch(/visible/);
    expect(tagProblem('Q3', ['q3'])).toBe('“Q3” is already a tag.');
    expect(
      tagProblem(
        'one more',
        Array.from({ length: 20 }, (_, i) => `t${i}`),
      ),
    ).toMatch(/at most 20 tags/);
  });

  it('adds typed tags up to the first that cannot be, handing that one and the rest back', () => {
    expect(addTags(['a'], ['b', 'c'])).toEqual({
      tags: ['a', 'b', 'c'],
      added: ['b', 'c'],
      rest: [],
    });
    const result = addTags(['a'], ['b', 'A', 'c']);
    expect(result).toMatchObject({ tags: ['a', 'b'], added: ['b'], rest: ['A', 'c'] });
    expect(result.error).toBe('“A” is already a tag.');
  });

  it('applying a change again to reviewed notes reopens them; a review asked for is asked again', () => {
    // Reviewed meanwhile: a change of the notes goes in only with their reopening.
    expect(reviewOnApply(true, true, undefined)).toBe(false);
    expect(reviewOnApply(true, true, true)).toBe(false);
    // Nothing of the notes to change: reviewed stays reviewed unless a reopening was asked for.
    expect(reviewOnApply(true, false, undefined)).toBeUndefined();
    expect(reviewOnApply(true, false, false)).toBe(false);
    expect(reviewOnApply(false, true, true)).toBe(true);
    expect(reviewOnApply(false, true, undefined)).toBeUndefined();
    expect(reviewOnApply(false, false, false)).toBeUndefined();
  });
});
