import { centsToDollarInput } from '@card-console/shared/money';
import type { UpstreamTransaction } from '@card-console/shared/upstream/transaction';

export const csvColumns = [
  'id',
  'date',
  'description',
  'merchant',
  'category code',
  'amount',
  'status',
  'card id',
  'reference number',
  'authorized at',
  'declined reason',
  'original currency',
  'original amount',
  'conversion rate',
] as const;

/**
 * What a spreadsheet may run as a formula (OWASP's CSV-injection list, with ASVS's NUL): a
 * cell starting with a control character (tab, CR, LF, NUL…), or one whose first character
 * after any white space, control or format characters (which spreadsheets may drop) is
 * = + - @ or their full-width forms ＝ ＋ － ＠.
 */
const formulaStart = /^(?:\p{Cc}|[\s\p{Cc}\p{Cf}]*[=+\-@\uFF1D\uFF0B\uFF0D\uFF20])/u;

/**
 * Text from the upstream or a merchant that a spreadsheet could run is prefixed with ' so it
 * stays text. Most cells start with a letter or digit: those skip the pattern.
 */
export function neutralizeFormula(text: string): string {
  const first = text.charCodeAt(0);
  const lower = first | 0x20; // an ASCII letter in lower case
  if ((lower >= 0x61 && lower <= 0x7a) || (first >= 0x30 && first <= 0x39)) return text;
  return formulaStart.test(text) ? `'${text}` : text;
}

const text = (value: string | undefined): string =>
  value === undefined ? '' : neutralizeFormula(value);

/** One transaction as a CSV record. Amounts are ours (numbers), so they stay numeric. */
export function toCsvRecord(t: UpstreamTransaction): string[] {
  const original = t.originalCurrency;
  return [
    text(t.id),
    text(t.date),
    text(t.description),
    text(t.merchantData?.description),
    text(t.merchantData?.categoryCode),
    centsToDollarInput(t.amountCents),
    text(t.status),
    text(t.cardId),
    text(t.referenceNumber),
    text(t.authorizedAt),
    text(t.declineReason),
    text(original?.code),
    original?.amountCents === undefined ? '' : centsToDollarInput(original.amountCents),
    original?.conversionRate === undefined ? '' : String(original.conversionRate),
  ];
}
