import { describe, expect, it } from 'vitest';
import {
  listOf,
  MAX_PAGES,
  noticingValidator,
  oneOf,
  pageCount,
  rejectedSearch,
  resourceId,
  text,
} from './search-params';

describe('a card-service id from a link', () => {
  it('takes any string the BFF can address: spaces, "/", "%", "+", any script', () => {
    for (const id of ['sa_ops', 'ops team', 'a/b?c#d', '100%', '+/=', '卡片 😀', '..x']) {
      expect(resourceId(id)).toBe(id);
    }
    // The router reads `?id=123` as the number 123.
    expect(resourceId(123)).toBe('123');
  });

  it('drops what the BFF refuses: empty, dot segments, control characters, over 512 bytes', () => {
    for (const bad of [
      '',
      '.',
      '..',
      'a\u0000b',
      'a\nb',
      'é'.repeat(257),
      ['a'],
      { id: 'a' },
      true,
    ]) {
      expect(resourceId(bad)).toBeUndefined();
    }
  });
});

describe('a list from a link', () => {
  const status = (v: unknown) => oneOf(['declined', 'settled'] as const, v);
  const merchant = (v: unknown) => text(v, 200);

  it('takes a list, or a value alone as a list of one; drops bad members and repeats', () => {
    expect(listOf(['declined', 'bogus', 'declined', 'settled'], status, 9)).toEqual([
      'declined',
      'settled',
    ]);
    expect(listOf('declined', status, 9)).toEqual(['declined']);
    expect(listOf(['bogus'], status, 9)).toBeUndefined();
    expect(listOf(undefined, status, 9)).toBeUndefined();
    expect(listOf(['a', 'b', 'c'], merchant, 2)).toEqual(['a', 'b']);
  });

  it('splits a text at its commas only when no value can hold a comma', () => {
    // A link whose commas something encoded on the way: `status=declined%2Csettled`.
    expect(listOf('declined,settled', status, 9, { commaFree: true })).toEqual([
      'declined',
      'settled',
    ]);
    expect(listOf('ACME, INC', merchant, 20)).toEqual(['ACME, INC']);
  });
});

describe('a text a bare comma in the address split', () => {
  it('is taken back whole by a field that is not a list', () => {
    expect(text(['coffee', ' tea'], 200)).toBe('coffee, tea');
    expect(resourceId(['sa', 'ops'])).toBe('sa,ops');
    expect(text([1, 2], 200)).toBeUndefined();
  });
});

describe('page count from a link', () => {
  it('takes a whole number of pages, caps it, and drops anything else', () => {
    expect(pageCount(3)).toBe(3);
    expect(pageCount('3')).toBe(3);
    expect(pageCount(1)).toBe(1);
    expect(pageCount(MAX_PAGES + 80)).toBe(MAX_PAGES);
    for (const bad of [0, -2, 1.5, 'abc', '', null, true, [2], '2e999']) {
      expect(pageCount(bad)).toBeUndefined();
    }
  });
});

describe('rejected search values', () => {
  it('names the values validation dropped or changed, as the link had them', () => {
    expect(
      rejectedSearch(
        { status: 'bogus', pages: 80, subAccountId: 123, unknown: 'x' },
        { status: undefined, pages: MAX_PAGES, subAccountId: '123', from: undefined },
      ),
    ).toEqual({ status: 'bogus', pages: 80 });
    expect(rejectedSearch({ status: 'settled' }, { status: 'settled' })).toBeUndefined();
    expect(rejectedSearch({ status: null }, { status: undefined })).toEqual({ status: null });
    expect(rejectedSearch({ q: 'undefined' }, { q: undefined })).toEqual({ q: 'undefined' });
  });

  it('keeps quiet about values kept as the address writes them', () => {
    const kept = (raw: unknown, valid: unknown) => rejectedSearch({ v: raw }, { v: valid });
    // A value alone read as a list of one, and an old link's list of one for a single value.
    expect(kept('settled', ['settled'])).toBeUndefined();
    expect(kept(['settled'], 'settled')).toBeUndefined();
    // `?q=coffee,tea` by hand, taken back whole; `status=declined%2Csettled` split.
    expect(kept(['coffee', 'tea'], 'coffee,tea')).toBeUndefined();
    expect(kept('declined,settled', ['declined', 'settled'])).toBeUndefined();
    expect(kept(['declined', 'bogus'], ['declined'])).toEqual({ v: ['declined', 'bogus'] });
    expect(kept('2', 2)).toBeUndefined();
  });

  it('hands what a validator dropped to the load of the corrected address, once', () => {
    const check = noticingValidator((s) => ({
      status: oneOf(['a', 'b'] as const, s.status),
      sort: oneOf(['x'] as const, s.sort),
    }));
    // The router corrects the address with the validator…
    const valid = check.validateSearch({ status: 'bogus', sort: 'x' });
    expect(valid).toEqual({ status: undefined, sort: 'x' });
    // …then loads the corrected address, whose values no longer show what was dropped.
    expect(check.takeRejected({ sort: 'x' }, valid)).toEqual({ status: 'bogus' });
    expect(check.takeRejected({ sort: 'x' }, valid)).toBeUndefined();
    // Not handed to the load of another address.
    check.validateSearch({ status: 'bogus' });
    expect(check.takeRejected({ sort: 'x' }, { status: undefined, sort: 'x' })).toBeUndefined();
    // An address that still holds a bad value says so itself.
    expect(check.takeRejected({ status: 'c' }, { status: undefined, sort: undefined })).toEqual({
      status: 'c',
    });
  });
});
