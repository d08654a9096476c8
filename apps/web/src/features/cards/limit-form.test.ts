import { cardPatchBodySchema } from '@card-console/shared/api/cards';
import { describe, expect, it } from 'vitest';
import { card } from '../../test/fixtures';
import {
  cardWithValues,
  changeOnCurrent,
  initialLimitValues,
  maximumWarning,
  validateLimitForm,
} from './limit-form';

const base = card({
  name: 'Travel',
  transactionSizeLimit: { minimumCents: 100, maximumCents: 50_000 },
});
const values = (patch: Partial<ReturnType<typeof initialLimitValues>>) => ({
  ...initialLimitValues(base),
  ...patch,
});

describe('limit form', () => {
  it('changes a limit of a card whose service-given name a person could not type, name untouched', () => {
    // A zero-width space in the card service's name: invisible, so no one could remove it.
    const odd = card({ name: 'Tra\u200Bvel', transactionSizeLimit: { maximumCents: 50_000 } });
    const result = validateLimitForm(odd, { ...initialLimitValues(odd), maximum: '600' });
    expect(result.ok).toBe(true);
    if (result.ok) {
      expect(result.body.name).toBeUndefined();
      expect(result.body.transactionSizeLimit).toEqual({ maximumCents: 60_000 });
    }
    // Typed anew, the same name is the person's, and refused.
    const typed = validateLimitForm(odd, { ...initialLimitValues(odd), name: 'Trav\u200Bel' });
    expect(typed.ok).toBe(false);
  });

  it('starts from the card as dollars', () => {
    expect(initialLimitValues(base)).toEqual({
      name: 'Travel',
      minimum: '1.00',
      maximum: '500.00',
    });
  });

  it('turns typed dollars into exact cents and lists old → new', () => {
    const result = validateLimitForm(base, values({ minimum: '2.5', maximum: '$1,234.56' }));
    expect(result).toEqual({
      ok: true,
      body: {
        transactionSizeLimit: { minimumCents: 250, maximumCents: 123_456 },
        expected: { minimumCents: 100, maximumCents: 50_000 },
      },
      changes: [
        // A higher minimum lets fewer through; a higher maximum lets more through.
        { field: 'Minimum per transaction', from: '$1.00', to: '$2.50', effect: 'tighter' },
        { field: 'Maximum per transaction', from: '$500.00', to: '$1,234.56', effect: 'looser' },
      ],
      warnings: [],
    });
    if (result.ok) expect(cardPatchBodySchema.safeParse(result.body).success).toBe(true);
  });

  it('sends only what changed, with the values it replaces as shown', () => {
    const renamed = validateLimitForm(base, values({ name: ' Travel EU ' }));
    expect(renamed.ok && renamed.body).toEqual({
      name: 'Travel EU',
      expected: { name: 'Travel' },
    });
    // A limit change states both limits: each was chosen seeing the other.
    const raised = validateLimitForm(base, values({ maximum: '600' }));
    expect(raised.ok && raised.body).toEqual({
      transactionSizeLimit: { maximumCents: 60_000 },
      expected: { minimumCents: 100, maximumCents: 50_000 },
    });
  });

  it.each([
    ['-1', 'The amount cannot be negative.'],
    ['1.234', 'Use at most two decimal places.'],
    ['abc', 'Enter an amount in dollars, such as 1,234.50.'],
    ['1,23', 'Enter an amount in dollars, such as 1,234.50.'],
  ])('refuses %s as a maximum', (typed, message) => {
    expect(validateLimitForm(base, values({ maximum: typed }))).toEqual({
      ok: false,
      errors: { maximum: message },
    });
  });

  it('refuses a minimum above the maximum, including the existing maximum', () => {
    expect(validateLimitForm(base, values({ minimum: '600', maximum: '500' }))).toEqual({
      ok: false,
      errors: { minimum: 'The minimum must not be above the maximum.' },
    });
    expect(validateLimitForm(base, values({ minimum: '500.01' })).ok).toBe(false);
    expect(validateLimitForm(base, values({ minimum: '500' })).ok).toBe(true);
  });

  it('refuses emptying an existing limit, allows leaving an absent one empty', () => {
    expect(validateLimitForm(base, values({ maximum: '' })).ok).toBe(false);
    const open = card({ transactionSizeLimit: {} });
    const result = validateLimitForm(open, { name: open.name, minimum: '', maximum: '20' });
    expect(result.ok && result.body).toEqual({
      transactionSizeLimit: { maximumCents: 2000 },
      expected: { minimumCents: null, maximumCents: null },
    });
    if (result.ok) expect(cardPatchBodySchema.safeParse(result.body).success).toBe(true);
  });

  it('warns that a $0 maximum blocks every purchase, but allows it', () => {
    const result = validateLimitForm(base, values({ minimum: '0', maximum: '0.00' }));
    expect(result.ok && result.warnings).toEqual([
      'A $0.00 maximum blocks every purchase on this card.',
    ]);
    expect(maximumWarning(base, '0')).toMatch(/blocks every purchase/);
    expect(maximumWarning(base, '0.01')).toBeUndefined();
  });

  it('warns about a very large maximum from the threshold up, but allows it', () => {
    const large = validateLimitForm(base, values({ maximum: '50,000' }));
    expect(large.ok && large.warnings).toEqual([
      'A $50,000.00 maximum per purchase is very high ($50,000.00 or more): check the amount.',
    ]);
    const below = validateLimitForm(base, values({ maximum: '49999.99' }));
    expect(below.ok && below.warnings).toEqual([]);
    // The threshold is the caller's to set.
    const custom = validateLimitForm(base, values({ maximum: '1000' }), 1000_00);
    expect(custom.ok && custom.warnings).toHaveLength(1);
    expect(maximumWarning(base, '75000')).toMatch(/\$75,000\.00 maximum per purchase is very high/);
    expect(maximumWarning(base, '49,999.99')).toBeUndefined();
  });

  it('does not warn about a maximum the card already has (a rename is not a second look at it)', () => {
    const large = card({ transactionSizeLimit: { maximumCents: 90_000_00 } });
    const renamed = validateLimitForm(large, { ...initialLimitValues(large), name: 'Renamed' });
    expect(renamed.ok && renamed.warnings).toEqual([]);
    expect(maximumWarning(large, '90000')).toBeUndefined();
    expect(maximumWarning(large, '90000.01')).toMatch(/very high/);
  });

  it('says when nothing changed, and requires a name that shows as what it is', () => {
    expect(validateLimitForm(base, values({}))).toEqual({
      ok: false,
      errors: { form: 'Nothing has changed.' },
    });
    expect(validateLimitForm(base, values({ name: '  ' }))).toEqual({
      ok: false,
      errors: { name: 'Enter a name.' },
    });
    const bidi = validateLimitForm(base, values({ name: 'Travel\u202Elevart' }));
    expect(bidi.ok === false && bidi.errors.name).toMatch(/text-direction/);
    const blank = validateLimitForm(base, values({ name: '\u200B\u200B' }));
    expect(blank.ok === false && blank.errors.name).toBe(
      'Use at least one visible letter, digit or sign.',
    );
  });

  it('takes the current values from a 409, a missing limit as none', () => {
    const now = cardWithValues(base, {
      name: 'Travel EU',
      minimumCents: null,
      maximumCents: 9_900,
    });
    expect(now).toEqual({
      ...base,
      name: 'Travel EU',
      transactionSizeLimit: { maximumCents: 9_900 },
    });
  });

  it("lays the person's change over the current values, keeping what they did not change", () => {
    const now = card({
      name: 'Renamed',
      transactionSizeLimit: { minimumCents: 500, maximumCents: 80_000 },
    });
    const mine = validateLimitForm(base, values({ maximum: '250' }));
    if (!mine.ok) throw new Error('expected a valid change');
    const merged = changeOnCurrent(now, mine.body);
    expect(merged).toEqual({ name: 'Renamed', minimum: '5.00', maximum: '250.00' });
    const again = validateLimitForm(now, merged);
    expect(again.ok && again.body).toEqual({
      transactionSizeLimit: { maximumCents: 25_000 },
      expected: { minimumCents: 500, maximumCents: 80_000 },
    });
  });
});
