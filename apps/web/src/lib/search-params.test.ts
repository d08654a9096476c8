import { describe, expect, it } from 'vitest';
import {
  MAX_PAGES,
  noticingValidator,
  oneOf,
  pageCount,
  rejectedSearch,
  resourceId,
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
