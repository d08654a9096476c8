/** Money is integer cents everywhere; these are the only conversions to and from text. */

const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });

/**
 * The sum of figures, or undefined when any of them is unknown: a total that counts a figure the
 * card service did not give as $0 is a wrong number, and a wrong number is worse than none.
 */
export function totalCents(figures: Iterable<number | undefined>): number | undefined {
  let total = 0;
  for (const cents of figures) {
    if (cents === undefined) return undefined;
    total += cents;
  }
  return total;
}

/** `-123450` → `-$1,234.50`. Cents must be a safe integer. */
export function formatCents(cents: number): string {
  if (!Number.isSafeInteger(cents)) throw new RangeError(`not a whole number of cents: ${cents}`);
  // Format via string arithmetic so large amounts keep every cent.
  const sign = cents < 0 ? -1 : 1;
  const abs = Math.abs(cents);
  const dollars = Math.trunc(abs / 100);
  const rest = abs % 100;
  const formatted = usd.format(dollars).replace(/\.00$/, `.${String(rest).padStart(2, '0')}`);
  return sign < 0 && abs !== 0 ? `-${formatted}` : formatted;
}

export type ParseDollarsResult = { ok: true; cents: number } | { ok: false; error: string };

export interface ParseDollarsOptions {
  allowNegative?: boolean;
  /** Largest accepted amount, in cents. */
  maxCents?: number;
}

const DOLLARS = /^(-)?\$?\s*((?:\d{1,3}(?:,\d{3})+)|\d+)?(?:\.(\d*))?$/;

/**
 * Parses what a person typed as dollars ("1,234.50", "$12", ".5", "-3.25") into integer
 * cents without going through floating point. Grouping commas must be well placed.
 */
export function parseDollarsToCents(
  input: string,
  options: ParseDollarsOptions = {},
): ParseDollarsResult {
  const { allowNegative = false, maxCents = Number.MAX_SAFE_INTEGER } = options;
  const text = input.trim();
  if (text === '') return { ok: false, error: 'Enter an amount.' };
  const match = DOLLARS.exec(text);
  if (!match) return { ok: false, error: 'Enter an amount in dollars, such as 1,234.50.' };
  const [, minus, whole = '', fraction] = match;
  if (whole === '' && (fraction === undefined || fraction === '')) {
    return { ok: false, error: 'Enter an amount in dollars, such as 1,234.50.' };
  }
  if (fraction !== undefined && fraction.length > 2) {
    return { ok: false, error: 'Use at most two decimal places.' };
  }
  if (minus && !allowNegative) return { ok: false, error: 'The amount cannot be negative.' };
  const digits = whole.replaceAll(',', '') || '0';
  if (digits.length > 13) return { ok: false, error: 'The amount is too large.' };
  const cents = Number(digits) * 100 + Number((fraction ?? '').padEnd(2, '0'));
  if (cents > maxCents)
    return { ok: false, error: `The amount cannot be above ${formatCents(maxCents)}.` };
  return { ok: true, cents: minus && cents !== 0 ? -cents : cents };
}

/** Cents as a plain editable dollar string: 123450 → "1234.50". */
export function centsToDollarInput(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.trunc(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/**
 * An amount in another currency as the card service gives it (`originalCurrency.amountCents`:
 * "amount in cents", hundredths of the currency's unit whatever its own minor unit), with its
 * symbol and code: 149254 JPY → "¥1,492.54 (JPY)", 4885 GBP → "£48.85 (GBP)". A code that is no
 * currency gets two decimals and the code. The minus is the typographic one the amounts beside it
 * use. The CSV writes the same hundredths (`centsToDollarInput`).
 */
export function formatCurrencyCents(cents: number, currency: string): string {
  if (!Number.isSafeInteger(cents)) throw new RangeError(`not a whole number of cents: ${cents}`);
  const abs = Math.abs(cents);
  const units = Math.trunc(abs / 100);
  const hundredths = String(abs % 100).padStart(2, '0');
  const minus = cents < 0 ? '\u2212' : '';
  let whole: string;
  try {
    whole = new Intl.NumberFormat('en-US', {
      style: 'currency',
      currency,
      maximumFractionDigits: 0,
      minimumFractionDigits: 0,
    }).format(units);
  } catch {
    return `${minus}${units}.${hundredths} ${currency}`;
  }
  return `${minus}${whole}.${hundredths} (${currency.toUpperCase()})`;
}
