import { describe, expect, it } from 'vitest';
import { auditRecord } from '../../test/fixtures';
import { attemptText, changeText, detailText, snapshotRows } from './audit-record-text';

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

  it('the close policy: the receipt amount and the categories needing a memo', () => {
    expect(
      changeText(
        { receiptFrom: '$75.00', memoCategories: [] },
        { receiptFrom: 'none', memoCategories: ['6100 Meals', '6200 Travel'] },
      ),
    ).toBe('Receipt from: $75.00 → none; Memo for: none → “6100 Meals, 6200 Travel”');
  });

  it('a refused or failed change reads as what was tried, only the values it asked for', () => {
    const before = { name: 'Travel', minimumCents: 100, maximumCents: 50_000 };
    expect(attemptText(before, { maximumCents: 90_000 })).toBe('Tried Maximum: $500.00 → $900.00');
    expect(attemptText(undefined, { name: 'Trips' })).toBe('Tried Name: “Trips”');
    expect(
      detailText(
        auditRecord({
          action: 'card.update',
          outcome: 'failed',
          before,
          after: { minimumCents: 0 },
          detail: 'card_changed',
        }),
      ),
    ).toBe('Tried Minimum: $1.00 → $0.00 · Card changed meanwhile');
  });

  it("a record's whole view lists every field either side holds, an attempt's untouched ones empty", () => {
    expect(
      snapshotRows({ name: 'Travel', maximumCents: 50_000 }, { maximumCents: 90_000 }),
    ).toEqual([
      { key: 'name', label: 'Name', before: '“Travel”', after: undefined },
      { key: 'maximumCents', label: 'Maximum', before: '$500.00', after: '$900.00' },
    ]);
    expect(snapshotRows(undefined, undefined)).toEqual([]);
  });
});
