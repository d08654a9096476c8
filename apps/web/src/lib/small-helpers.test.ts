import { describe, expect, it } from 'vitest';
import { formatDate, groupInFours, maskedLast4, maskedPan } from './format';
import { safeRedirect } from './safe-redirect';
import { flag, oneOf, text } from './search-params';

describe('search params', () => {
  it('falls back to undefined for anything unexpected', () => {
    expect(oneOf(['a', 'b'] as const, 'a')).toBe('a');
    expect(oneOf(['a', 'b'] as const, 'c')).toBeUndefined();
    expect(oneOf(['a', 'b'] as const, ['a'])).toBeUndefined();
    expect(text('abc', 5, /^[a-z]+$/)).toBe('abc');
    expect(text('ABC', 5, /^[a-z]+$/)).toBeUndefined();
    expect(text('', 5)).toBeUndefined();
    expect(text(42, 5)).toBe('42');
    expect(flag('true')).toBe(true);
    expect(flag('yes')).toBeUndefined();
  });
});

describe('safe redirect', () => {
  it('returns only paths inside the app', () => {
    expect(safeRedirect('/cards?status=active')).toBe('/cards?status=active');
    expect(safeRedirect(undefined)).toBe('/overview');
    expect(safeRedirect('https://evil.example/')).toBe('/overview');
    expect(safeRedirect('//evil.example/')).toBe('/overview');
    expect(safeRedirect('/\\evil.example/')).toBe('/overview');
    expect(safeRedirect('/sign-in?redirect=x')).toBe('/overview');
  });
});

describe('card number display', () => {
  it('masks and groups', () => {
    expect(maskedLast4('4242')).toBe('•••• 4242');
    expect(maskedPan('4242')).toBe('•••• •••• •••• 4242');
    expect(groupInFours('1234567812345678')).toBe('1234 5678 1234 5678');
    expect(groupInFours('123456789012345')).toBe('1234 5678 9012 345');
  });
});

describe('dates on screen', () => {
  it('shows a bare calendar day as that day in any zone', () => {
    expect(formatDate('2024-05-22')).toMatch(/May 22, 2024/);
    expect(formatDate(undefined)).toBe('—');
    expect(formatDate('not a date')).toBe('not a date');
  });
});
