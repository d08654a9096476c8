import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  centsToDollarInput,
  formatCents,
  formatCurrencyCents,
  parseDollarsToCents,
  totalCents,
} from './money';

describe('parseDollarsToCents', () => {
  it.each([
    ['1,234.50', 123450],
    ['1234.5', 123450],
    ['$12', 1200],
    ['.5', 50],
    ['0.07', 7],
    ['0', 0],
    ['  19.99 ', 1999],
    ['1,000,000.01', 100000001],
    ['12.', 1200],
  ])('reads %s as %i cents', (text, cents) => {
    expect(parseDollarsToCents(text)).toEqual({ ok: true, cents });
  });

  it('never drifts like floating point would (0.29 dollars is 29 cents, 1.005 is refused)', () => {
    expect(parseDollarsToCents('0.29')).toEqual({ ok: true, cents: 29 });
    expect(parseDollarsToCents('1.005')).toEqual({
      ok: false,
      error: 'Use at most two decimal places.',
    });
  });

  it.each(['', 'abc', '1,23.00', '12,3456', '1.2.3', '$', '.', '--1', '1e5', '0x10'])(
    'refuses %j',
    (text) => {
      expect(parseDollarsToCents(text).ok).toBe(false);
    },
  );

  it('refuses negatives unless allowed', () => {
    expect(parseDollarsToCents('-3.25')).toEqual({
      ok: false,
      error: 'The amount cannot be negative.',
    });
    expect(parseDollarsToCents('-3.25', { allowNegative: true })).toEqual({
      ok: true,
      cents: -325,
    });
  });

  it('refuses amounts above the maximum', () => {
    expect(parseDollarsToCents('100.01', { maxCents: 10000 }).ok).toBe(false);
    expect(parseDollarsToCents('100.00', { maxCents: 10000 })).toEqual({ ok: true, cents: 10000 });
  });

  it('round-trips any cents amount through the editable form', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 ** 12 }), (cents) => {
        expect(parseDollarsToCents(centsToDollarInput(cents))).toEqual({ ok: true, cents });
      }),
    );
  });
});

describe('formatCents', () => {
  it.each([
    [0, '$0.00'],
    [5, '$0.05'],
    [123450, '$1,234.50'],
    [-123450, '-$1,234.50'],
    [900719925474099, '$9,007,199,254,740.99'],
  ])('%i → %s', (cents, text) => {
    expect(formatCents(cents)).toBe(text);
  });

  it('refuses fractional cents', () => {
    expect(() => formatCents(1.5)).toThrow(RangeError);
  });

  it('formats then parses back to the same cents', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 ** 13 }), (cents) => {
        expect(parseDollarsToCents(formatCents(cents))).toEqual({ ok: true, cents });
      }),
    );
  });
});

describe('totalCents', () => {
  it('sums whole cents, and is unknown when any figure is', () => {
    expect(totalCents([1234567, 500000, -1])).toBe(1734566);
    expect(totalCents([])).toBe(0);
    expect(totalCents([1234567, undefined, 500000])).toBeUndefined();
    expect(totalCents([undefined])).toBeUndefined();
  });
});

describe('formatCurrencyCents', () => {
  it("shows hundredths of any currency's unit, as the card service gives them, with its symbol and code", () => {
    expect(formatCurrencyCents(4_885, 'GBP')).toBe('£48.85 (GBP)');
    expect(formatCurrencyCents(1_150, 'EUR')).toBe('€11.50 (EUR)');
    // The yen's own minor unit is the yen, but the service's amount is in hundredths: $10 at
    // 0.0067 USD a yen is 149,254 hundredths, ¥1,492.54 (not ¥149,254).
    expect(formatCurrencyCents(149_254, 'JPY')).toBe('¥1,492.54 (JPY)');
    expect(formatCurrencyCents(123_456_789, 'USD')).toBe('$1,234,567.89 (USD)');
    expect(formatCurrencyCents(9_007_199_254_740_991, 'USD')).toBe('$90,071,992,547,409.91 (USD)');
    expect(formatCurrencyCents(1_150, 'not money')).toBe('11.50 not money');
    expect(formatCurrencyCents(5, 'eur')).toBe('€0.05 (EUR)');
  });

  it('writes a debit with the minus sign the other amounts use', () => {
    expect(formatCurrencyCents(-117_149, 'GBP')).toBe('\u2212£1,171.49 (GBP)');
  });
});
