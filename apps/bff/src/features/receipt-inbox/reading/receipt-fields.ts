// What the receipt inbox reads off a receipt's text (a PDF's text layer or OCR): its total, its
// date and its merchant. Every field is a guess that a person confirms later, so each rule
// prefers no answer to a wrong one: a wrong total suggests the wrong transaction.
import { holdsCardNumber } from '../../../platform/security/card-number-ids';

export interface ReceiptFields {
  /** The receipt's total in cents (not a subtotal, tax or tip). */
  totalCents?: number;
  /** YYYY-MM-DD. */
  date?: string;
  /** The header's name line, as written. */
  merchant?: string;
}

/** `text`'s total, date and merchant; `today` bounds the dates believed (tests pass their own). */
export function fieldsOf(
  text: string,
  { today = new Date() }: { today?: Date } = {},
): ReceiptFields {
  const lines = text
    .split(/\r?\n/)
    .map((line) => deNoised(line.replace(/\s+/g, ' ').trim()))
    .filter((line) => line !== '');
  const fields: ReceiptFields = {};
  const totalCents = totalOf(lines);
  if (totalCents !== undefined) fields.totalCents = totalCents;
  const date = dateOf(lines, today);
  if (date !== undefined) fields.date = date;
  const merchant = merchantOf(lines);
  // The header can be the only place a card number shows up in the fields: never keep one.
  if (merchant !== undefined && !holdsCardNumber(merchant)) fields.merchant = merchant;
  return fields;
}

/**
 * A picture's fields from its OCR text (`first`), and when that holds no date, the date alone of
 * a second reading (`again`, asked only then): never its total, since a total misread suggests
 * the wrong transaction (reader-child.ts says which readings).
 */
export async function pictureFieldsOf(
  first: string,
  again: () => Promise<string>,
  options: { today?: Date } = {},
): Promise<ReceiptFields> {
  const fields = fieldsOf(first, options);
  if (fields.date !== undefined) return fields;
  const date = fieldsOf(await again(), options).date;
  return date === undefined ? fields : { ...fields, date };
}

/**
 * OCR's usual misreadings inside numbers: O for 0 and I or l for 1 next to a digit (`1O.5O`,
 * `$O.52`, `1I/2O/2O26`), S for $ before an amount (`S12.88`), 0 for O in TOTAL.
 */
function deNoised(line: string): string {
  return line
    .replace(/(?<=[\d$][.,/]?)[Oo]+|[Oo]+(?=[.,/]?\d)/g, (o) => '0'.repeat(o.length))
    .replace(/(?<=\d[.,/]?)[Il](?![\p{L}])|(?<![\p{L}])[Il](?=[.,/]?\d)/gu, '1')
    .replace(/(?<![\p{L}\d])S(?=\s?\d+\s?[.,]\s?\d{2}(?!\d))/gu, '$')
    .replace(/\bT0TAL/gi, 'TOTAL');
}

// --- Total ------------------------------------------------------------------------------------

/**
 * No receipt's total is beyond this (ten billion dollars, in cents): a longer run of digits is
 * an account or order number, or a misread, and no amount at all. Past 2^53 it would not even be
 * an exact number, and past 2^63 not an amount the index's bigint can be asked about (a
 * "TOTAL $100000000000000000.00" failed the match's query, and the item stayed `reading`).
 */
export const MAX_TOTAL_CENTS = 1_000_000_000_000;

interface Amount {
  cents: number;
  /** Written with a minus (before it, or after it as US registers mark credits). */
  negative: boolean;
}

/**
 * A money amount: always with cents (a count or a quantity has none), an optional currency,
 * comma thousands (`1,234.56`) or a comma OCR read for the point (`12,88`), stray spaces around
 * the point (`12 .88`). Not a rate (`8.25%`) nor part of a dotted date (`24.11.2026`).
 */
const AMOUNT =
  /(?<![\d.,])(-)?(?:(?:USD|US\$|\$)\s?)?(-)?(\d{1,3}(?:,\d{3})+|\d+)\s?[.,]\s?(\d{2})(?![\d%]|[.,]\d|\s?%)(-)?/g;

function amountsOf(line: string): Amount[] {
  return [...line.matchAll(AMOUNT)]
    .map((m) => ({
      cents: Number((m[3] as string).replaceAll(',', '')) * 100 + Number(m[4]),
      negative: Boolean(m[1] || m[2] || m[5]),
    }))
    .filter((amount) => amount.cents <= MAX_TOTAL_CENTS);
}

/** A line that is nothing but an amount (a label's value laid out on the next line). */
const BARE_AMOUNT = /^(?:USD|US\$|\$)?\s?-?\d[\d,]*\s?[.,]\s?\d{2}-?(?:\s?USD)?$/;

/** Labels that name the whole: total, total due, grand total, amount due/paid, balance due. */
const TOTAL_LABEL =
  /\b(?:grand\s?total|totals?|amount\s(?:due|paid|charged|payable)|balance(?:\s(?:due|owing))?)\b|^(?:sale\s|purchase\s)?(?:amount|amt)\b/i;
/**
 * Labels of parts of the total, or of other money: a total line naming any of them is not the
 * total (`Subtotal`, `Total tax`, `Total savings`, `Tip`, `Change due`, `Previous balance`).
 */
const NOT_TOTAL =
  /sub[\s-]?total|\btax|\btips?\b|gratuity|service|\bchange\b|tendered|discount|saving|\bsaved\b|\bbefore\b|previous|prior|forward|points|rewards|gift card|\d\s?%/i;
/** "Total incl. tax", "Total with tip": what the total includes is no part of it to exclude. */
const INCLUDED =
  /\b(?:incl(?:uding|uded|\.)?|with|after|plus)\s(?:all\s)?(?:sales\s)?(?:tax(?:es)?|vat|gst|hst|tips?|gratuity|service)\b|\b(?:tax(?:es)?|tips?|gratuity|service)\sincl(?:uded|\.)?/gi;
/** A card payment line (`Visa $12.88`), the amount charged when the total's line is missing. */
const CARD_LINE =
  /^(?:visa|master\s?card|mc|amex|american express|discover|debit|credit|card|contactless)\b/i;

function isTotalLabel(label: string): boolean {
  return TOTAL_LABEL.test(label) && !NOT_TOTAL.test(label.replace(INCLUDED, ''));
}

/**
 * The last positive amount on a total line: with a tip line between two totals (a restaurant's
 * signed copy), the last total is the grand total, and a hotel folio's "Balance due 0.00" after
 * payment leaves its "Total charges". Else one card payment line; else `fallbackTotal`.
 */
function totalOf(lines: readonly string[]): number | undefined {
  const totals: Amount[] = [];
  const cardAmounts = new Set<number>();
  lines.forEach((line, i) => {
    const amount = amountsOf(line).at(-1);
    const label = line.replace(AMOUNT, ' ');
    if (isTotalLabel(label)) {
      const value = amount ?? valueOnNextLine(lines, i);
      if (value) totals.push(value);
    } else if (amount && CARD_LINE.test(line) && !NOT_TOTAL.test(label)) {
      if (!amount.negative && amount.cents > 0) cardAmounts.add(amount.cents);
    }
  });
  const total = totals.findLast((amount) => !amount.negative && amount.cents > 0);
  if (total) return total.cents;
  // Split payments (two cards) are not a total: only one card amount is.
  if (cardAmounts.size === 1) return [...cardAmounts][0];
  if (cardAmounts.size > 1) return undefined;
  return fallbackTotal(lines);
}

/**
 * "Amount due" with its value on the line below, as PDF invoices and OCR of columns lay it out;
 * not when labels and values come as two lists ("Subtotal / Tax / Total" then three amounts),
 * where the line below is another label's value.
 */
function valueOnNextLine(lines: readonly string[], i: number): Amount | undefined {
  const [next, after] = [lines[i + 1], lines[i + 2]];
  if (next === undefined || !BARE_AMOUNT.test(next)) return undefined;
  if (after !== undefined && BARE_AMOUNT.test(after)) return undefined;
  return amountsOf(next)[0];
}

/**
 * With no total line (OCR lost it, or the receipt has none): the page's only amount, or the
 * largest when it is larger than every other and the amounts just before it add up to it
 * (items, or subtotal and tax). Anything else, a cash tendered or one large item, is no answer.
 */
function fallbackTotal(lines: readonly string[]): number | undefined {
  const amounts = lines
    .flatMap(amountsOf)
    .filter((amount) => !amount.negative && amount.cents > 0)
    .map((amount) => amount.cents);
  const distinct = new Set(amounts);
  if (distinct.size === 1) return amounts[0];
  const largest = Math.max(...amounts);
  if (amounts.filter((cents) => cents === largest).length !== 1) return undefined;
  const at = amounts.indexOf(largest);
  let sum = 0;
  for (let j = at - 1; j >= 0 && sum < largest; j--) {
    sum += amounts[j] as number;
    if (sum === largest && at - j >= 2) return largest;
  }
  return undefined;
}

// --- Date -------------------------------------------------------------------------------------

const MONTH =
  '(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\\.?';
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
/** Not followed by more digits, nor by a point and digits (`26.50` is an amount, not '26). */
const END = '(?![\\d/]|[.,-]\\d)';
/** 11/24/2026, 24-11-26, 2026-11-24, Nov 24, 2026, 24 Nov 2026, 24-Nov-26, November 24th 2026. */
const DATE_FORMS = new RegExp(
  [
    `(?<![\\d/.-])(\\d{1,2})[/.-](\\d{1,2})[/.-](\\d{4}|\\d{2})${END}`,
    `(?<![\\d/.-])(\\d{4})[/.-](\\d{1,2})[/.-](\\d{1,2})${END}`,
    `\\b(\\d{1,2})(?:st|nd|rd|th)?[\\s-]?${MONTH}[\\s,-]*(\\d{4}|\\d{2})${END}`,
    `\\b${MONTH}\\s?(\\d{1,2})(?:st|nd|rd|th)?(?:,\\s?|\\s)(\\d{4})${END}`,
  ].join('|'),
  'gi',
);
/** A label naming the receipt's own date; checkout is when a hotel charges. */
const DATE_LABEL = /\b(?:date|dated|issued|departure|check[\s-]?out)\b/i;
/** Labels of dates that are not the receipt's: due, expiry, arrival. */
const OTHER_DATE = /\b(?:due|expir\w*|exp|valid|arrival|arrive|check[\s-]?in|birth)\b/i;

const DAY_MS = 86_400_000;

/** A real calendar day as YYYY-MM-DD, or undefined. */
function calendarDay(year: number, month: number, day: number): string | undefined {
  const at = new Date(Date.UTC(year < 100 ? 2000 + year : year, month - 1, day));
  if (at.getUTCMonth() !== month - 1 || at.getUTCDate() !== day) return undefined;
  return at.toISOString().slice(0, 10);
}

interface WrittenDate {
  day: string;
  /** The text between the previous date (or the line's start) and this one. */
  label: string;
}

/**
 * The calendar days written on a line. Numeric day and month: US month first when both could
 * be a month; when one is over 12, it is the day.
 */
function datesOf(line: string): WrittenDate[] {
  const found: WrittenDate[] = [];
  let labelStart = 0;
  for (const m of line.matchAll(DATE_FORMS)) {
    const n = (k: number) => Number(m[k]);
    const month = (k: number) => MONTHS.indexOf((m[k] as string).slice(0, 3).toLowerCase()) + 1;
    let day: string | undefined;
    if (m[1]) day = n(1) > 12 ? calendarDay(n(3), n(2), n(1)) : calendarDay(n(3), n(1), n(2));
    else if (m[4]) day = calendarDay(n(4), n(5), n(6));
    else if (m[7]) day = calendarDay(n(9), month(8), n(7));
    else day = calendarDay(n(12), month(10), n(11));
    if (day) found.push({ day, label: line.slice(labelStart, m.index) });
    labelStart = m.index + m[0].length;
  }
  return found;
}

const ownDate = (label: string) => DATE_LABEL.test(label) && !OTHER_DATE.test(label);

/**
 * The first believable date labelled as the receipt's (on the label's line or just below it),
 * else the first believable date not labelled as another one. Believable: not after tomorrow
 * (time zones) and not older than two years.
 */
function dateOf(lines: readonly string[], today: Date): string | undefined {
  const latest = new Date(today.getTime() + DAY_MS).toISOString().slice(0, 10);
  const twoYearsAgo = new Date(today);
  twoYearsAgo.setUTCFullYear(today.getUTCFullYear() - 2);
  const earliest = twoYearsAgo.toISOString().slice(0, 10);
  const believable = (line: string) =>
    datesOf(line).filter(({ day }) => day >= earliest && day <= latest);
  let first: string | undefined;
  for (const [i, line] of lines.entries()) {
    const dates = believable(line);
    const labelled = dates.find(({ label }) => ownDate(label));
    if (labelled) return labelled.day;
    if (dates.length === 0 && ownDate(line)) {
      const below = believable(lines[i + 1] ?? '').find(({ label }) => !OTHER_DATE.test(label));
      if (below) return below.day;
    }
    first ??= dates.find(({ label }) => !OTHER_DATE.test(label))?.day;
  }
  return first;
}

// --- Merchant ---------------------------------------------------------------------------------

/** How far down the header can go before items start. */
const HEADER_LINES = 12;
const STREET =
  /\b(?:st|street|ave|avenue|rd|road|blvd|boulevard|dr|drive|ln|lane|way|hwy|highway|pkwy|parkway|ct|court|pl|place|plaza|sq|square|suite|ste|unit|floor|fl|box|route|rte)\b/i;
/** Header lines that are not the name. */
const NOT_A_NAME = [
  /,?\s[A-Z]{2}\s\d{5}(?:-\d{4})?\b/, // City, ST 12345
  /\(?\b\d{3}\)?[\s.-]\d{3}[\s.-]\d{4}\b/, // a phone number
  /\b(?:tel|phone|ph|fax)\b/i,
  /www\.|https?:|@|\.(?:com|net|org|io)\//i,
  /^(?:sales\s|tax\s|guest\s|customer\s|merchant\s|cardholder\s|store\s)?(?:receipt|invoice|order|bill|folio|statement|check|ticket|transaction|copy)\b(?:$|\s?(?:#|:|no\b|number|id\b|to\b|copy|date|of\b|\d))/i,
  /^(?:original|duplicate|reprint|copy)$/i,
  /^(?:store|str|shop|location|loc|branch|register|reg|terminal|term|trans|tran|op|pump|lane|till|pos)\b\W*(?:#|no\b|number\b)?\W*\d/i,
  /^#\s?\d/,
  /\b(?:welcome|thank(?:s|\syou)|cashier|server|table)\b/i,
  /\b\d{1,2}:\d{2}\b/, // a time
];

/**
 * A header line without what is not the name: decorations (`*** CORNER MARKET ***`), OCR's
 * specks before it (`oo`, `i"`, `§`: a token of one or two characters with no capital or digit)
 * or after it (` .`), and 0 read for O inside a word (`Shell 0il`).
 */
function nameOf(line: string): string {
  return line
    .replace(/^(?:[^\p{Lu}\p{N}\s]{1,2}\s+)+(?=\S)/u, '')
    .replace(/^[^\p{L}\p{N}]+/u, '')
    .replace(/(?:\s+[^\p{L}\p{N}\s]{1,2})+$/u, '')
    .replace(/[^\p{L}\p{N}).!'’]+$/u, '')
    .replace(/(?<=\p{L})0(?=\p{L})|\b0(?=\p{Ll}{2})/gu, 'O');
}

/**
 * The header's first line that reads as a name: not an address, a phone, a web address, a
 * document title, a store number, a date or time, a greeting; mostly letters.
 */
function merchantOf(lines: readonly string[]): string | undefined {
  for (const line of lines.slice(0, HEADER_LINES)) {
    // Past the header: amounts are the items.
    if (amountsOf(line).length > 0) return undefined;
    const name = nameOf(line);
    const letters = name.match(/\p{L}/gu)?.length ?? 0;
    // "Shell Oil 57442 #106" is a name; "#0871 03 2210" is not.
    if (name.length < 3 || letters < 2 || letters < name.replace(/\s/g, '').length * 0.4) continue;
    if (/^\d/.test(name) && STREET.test(name)) continue;
    if (NOT_A_NAME.some((pattern) => pattern.test(name)) || datesOf(name).length > 0) continue;
    return name.slice(0, 80).trim();
  }
  return undefined;
}
