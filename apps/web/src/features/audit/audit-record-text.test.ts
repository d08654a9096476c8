import { describe, expect, it } from 'vitest';
import { auditRecord } from '../../test/fixtures';
import { changeText, detailText } from './audit-record-text';

describe('audit record text', () => {
  it("a card's name and limits read as before", () => {
    expect(changeText({ maximumCents: 50_000 }, { maximumCents: 25_000 })).toBe(
      'Maximum: $500.00 → $250.00',
    );
    expect(changeText({ name: 'Old', minimumCents: 100 }, { name: 'New', minimumCents: 100 })).toBe(
      'Name: “Old” → “New”',
    );
    expect(changeText(undefined, { name: 'Travel', maximumCents: 100 })).toBe(
      '— → name “Travel”, maximum $1.00',
    );
    expect(changeText({ name: 'Same' }, { name: 'Same' })).toBe('No change');
  });

  it("a transaction's notes: memo, category, tags and review, each that moved", () => {
    const before = { memo: '', tags: ['q3'], reviewed: false };
    const after = {
      memo: 'Client dinner',
      category: '6100 Meals',
      tags: ['q3', 'travel'],
      reviewed: true,
    };
    expect(changeText(before, after)).toBe(
      'Memo: none → “Client dinner”; Category: none → “6100 Meals”; Tags: “q3” → “q3, travel”; Review: not reviewed → reviewed',
    );
    // The same tags in two records are no change.
    expect(changeText({ ...after }, { ...after, tags: ['q3', 'travel'] })).toBe('No change');
    expect(changeText({ memo: 'a', tags: ['x'] }, { memo: 'b', tags: [] })).toBe(
      'Memo: “a” → “b”; Tags: “x” → none',
    );
  });

  it("an accounting category's code, name and archiving", () => {
    expect(
      detailText(
        auditRecord({
          action: 'category.create',
          cardId: undefined,
          last4: undefined,
          before: undefined,
          after: { code: '6100', name: 'Meals', archived: false },
        }),
      ),
    ).toBe('— → code “6100”, name “Meals”, status active');
    expect(
      changeText(
        { code: '6100', name: 'Meals', archived: false },
        { code: '6110', name: 'Meals', archived: true },
      ),
    ).toBe('Code: “6100” → “6110”; Status: active → archived');
  });
});
