import { centsToDollarInput } from '@card-console/shared/money';
import type { UpstreamTransaction } from '@card-console/shared/upstream/transaction';
import { maskCardNumbers } from '../../platform/security/card-numbers';
import { createLocalTimes, isInstant, type LocalTimes } from './local-time';
import { merchantCategoryName } from './merchant-categories';
import type { CardNames } from './transaction-mapper';

/**
 * The export's columns. `date` and `authorized at` are the person's local time with its
 * offset (`2026-11-03T09:14:05-05:00`); `time zone` names the zone they are written in, so
 * the header stays the same whatever the zone and a file says how to read its times.
 */
export const csvColumns = [
  'id',
  'date',
  'time zone',
  'description',
  'merchant',
  'category code',
  'category name',
  'amount',
  'status',
  'card id',
  'card name',
  'card last 4',
  'reference number',
  'authorized at',
  'declined reason',
  'original currency',
  'original amount',
  'conversion rate',
] as const;

/** How a file's rows are written: the zone for its times, and who names its cards. */
export interface CsvRowOptions {
  times: LocalTimes;
  cards?: CardNames;
}

const utcRows: CsvRowOptions = { times: createLocalTimes('UTC') };
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

/**
 * A text cell of an export file (this CSV, the index's, QuickBooks' and Xero's): its card
 * numbers masked by the one matcher (`maskCardNumbers`, whatever joins their digits, so no
 * later step such as collapsing spaces can join one again), then kept from running as a formula.
 */
export function exportText(text: string): string {
  return neutralizeFormula(maskCardNumbers(text));
}

const text = (value: string | undefined): string => (value === undefined ? '' : exportText(value));

/**
 * A time cell. A timestamp is written by `times` and left as written: its digits are a time,
 * however they add up (`17:14:05.123-04:00` holds 13 digits that may pass the Luhn check), and
 * the matcher would mask some. Anything else the service sent there is text like any other.
 */
const time = (value: string | undefined, times: LocalTimes): string =>
  value !== undefined && isInstant(value) ? times.format(value) : text(value);

/** One transaction as a CSV record. Amounts are ours (numbers), so they stay numeric. */
export function toCsvRecord(
  t: UpstreamTransaction,
  { times, cards }: CsvRowOptions = utcRows,
): string[] {
  const original = t.originalCurrency;
  const code = t.merchantData?.categoryCode;
  const card = t.cardId === undefined ? undefined : cards?.label(t.cardId);
  return [
    text(t.id),
    time(t.date, times),
    text(times.zone),
    text(t.description),
    text(t.merchantData?.description),
    text(code),
    text(code === undefined ? undefined : merchantCategoryName(code)),
    centsToDollarInput(t.amountCents),
    text(t.status),
    text(t.cardId),
    text(card?.name),
    text(card?.last4),
    text(t.referenceNumber),
    time(t.authorizedAt, times),
    text(t.declineReason),
    text(original?.code),
    original?.amountCents === undefined ? '' : centsToDollarInput(original.amountCents),
    original?.conversionRate === undefined ? '' : String(original.conversionRate),
  ];
}
