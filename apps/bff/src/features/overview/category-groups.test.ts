import {
  categoryGroupLabel,
  categoryGroupOf,
  categoryGroups,
} from '@card-console/shared/category-groups';
import mcc from 'mcc';
import { describe, expect, it } from 'vitest';

describe('merchant category groups', () => {
  it('the ranges touch without overlapping from 0001 to 9999', () => {
    expect(categoryGroups[0]?.first).toBe(1);
    expect(categoryGroups.at(-1)?.last).toBe(9999);
    for (let i = 1; i < categoryGroups.length; i++) {
      expect(categoryGroups[i]?.first).toBe((categoryGroups[i - 1]?.last ?? 0) + 1);
    }
  });

  it('puts codes at the edges of each range where the networks do', () => {
    const cases: [string, string][] = [
      ['0742', 'agricultural'],
      ['1520', 'contracted'],
      ['3000', 'airlines'],
      ['3350', 'airlines'],
      ['3351', 'car-rental'],
      ['3500', 'car-rental'],
      ['3501', 'lodging'],
      ['3999', 'lodging'],
      ['4000', 'transportation'],
      ['4511', 'transportation'],
      ['4799', 'transportation'],
      ['4800', 'utilities'],
      ['4900', 'utilities'],
      ['5411', 'retail'],
      ['5651', 'clothing'],
      ['5812', 'misc-stores'],
      ['7011', 'misc-stores'],
      ['7300', 'business'],
      ['8011', 'professional'],
      ['9311', 'government'],
    ];
    for (const [code, group] of cases) expect(categoryGroupOf(code), code).toBe(group);
  });

  it('no code, a malformed one or 0000 is uncategorized', () => {
    for (const code of [undefined, '', '581', '58120', 'abcd', '0000']) {
      expect(categoryGroupOf(code)).toBe('uncategorized');
    }
    expect(categoryGroupLabel('uncategorized')).toBe('No merchant category');
  });

  it('every code the mcc list knows falls in a named group', () => {
    for (const { mcc: code } of mcc.all) {
      const group = categoryGroupOf(code);
      expect(group, code).not.toBe('uncategorized');
      expect(categoryGroupLabel(group)).not.toBe(group);
    }
  });
});
