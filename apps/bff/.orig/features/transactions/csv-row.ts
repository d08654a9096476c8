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
 * A spreadsheet runs a cell that starts with = + - @ (or a tab / CR before one) as a formula.
 * Text from the upstream or a merchant is prefixed with ' so it stays text.
 */
export function neutralizeFormula(text: string): string {
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
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
