// Which transaction a receipt is of (decision 0118): its total against the amount (a tipping
// merchant's within TIP_MARGIN), its date against the posting (a lag of up to POSTING_LAG_DAYS),
// its header against the card's descriptor (shops print their name, not the descriptor), and
// transactions without a receipt first. Attached without asking only when certain: the exact
// amount, the date window and the merchant all agree and no other transaction comes close.
// Everything else is suggested with its reasons, or left waiting.
import {
  EARLY_POSTING_DAYS,
  type InboxRead,
  type InboxSuggestion,
  type MatchReason,
  POSTING_LAG_DAYS,
  TIP_MARGIN,
  TIPPING_CATEGORY_CODES,
} from '@card-console/shared/api/receipt-inbox';

const DAY_MS = 86_400_000;
/** Suggestions shown at most. */
export const SUGGESTIONS_MAX = 3;
/** A candidate below this score is not worth a person's look. */
const SUGGEST_FROM = 0.45;
/** Merchant similarity from which the names are taken to agree. */
const SAME_MERCHANT = 0.5;
/** How far ahead of the next candidate a certain match must be. */
const CLEAR_LEAD = 0.2;
/** Without a date read, how far back a receipt's transaction is looked for. */
const UNDATED_DAYS = 90;

/** A transaction of the index that may be the receipt's. */
export interface MatchCandidate {
  subAccountId: string;
  id: string;
  at: string;
  description: string;
  merchant?: string | undefined;
  categoryCode?: string | undefined;
  /** Negative: a debit (a card charge). */
  amountCents: number;
  hasReceipt: boolean;
}

/** Which transactions to fetch for a receipt: an amount range and a time window. */
export interface CandidateWindow {
  lowCents: number;
  highCents: number;
  fromAt: string;
  toAt: string;
}

/** The candidates' window for what was read, or undefined when there is nothing to match on. */
export function candidateWindow(read: InboxRead, now: number): CandidateWindow | undefined {
  if (read.totalCents === undefined) return undefined;
  const total = read.totalCents;
  const day = read.date ? Date.parse(`${read.date}T00:00:00Z`) : Number.NaN;
  const from = Number.isNaN(day) ? now - UNDATED_DAYS * DAY_MS : day - EARLY_POSTING_DAYS * DAY_MS;
  const to = Number.isNaN(day) ? now + DAY_MS : day + (POSTING_LAG_DAYS + 1) * DAY_MS;
  return {
    lowCents: Math.ceil(total / (1 + TIP_MARGIN)),
    highCents: Math.floor(total * (1 + TIP_MARGIN)),
    fromAt: new Date(from).toISOString(),
    toAt: new Date(to).toISOString(),
  };
}

/** Words that say nothing of which shop it is. */
const FILLER = new Set([
  'the',
  'and',
  'inc',
  'llc',
  'ltd',
  'co',
  'corp',
  'company',
  'store',
  'shop',
  'receipt',
  'invoice',
  'www',
  'com',
]);

/** A name's words: accents and a processor's prefix (`SQ *`, `PAYPAL *`) gone, lower case. */
export function nameWords(text: string): string[] {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/^\s*[A-Za-z]{2,8}\s?\*\s?/, '')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length >= 2 && !FILLER.has(word) && !/^\d+$/.test(word));
}

/** One edit apart at most (a letter OCR misread, dropped or added). */
function nearlySame(a: string, b: string): boolean {
  if (a === b) return true;
  if (Math.abs(a.length - b.length) > 1 || Math.min(a.length, b.length) < 4) return false;
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  const [long, short] = a.length >= b.length ? [a, b] : [b, a];
  if (long.length === short.length) return long.slice(i + 1) === short.slice(i + 1);
  return long.slice(i + 1) === short.slice(i);
}

const wordFound = (word: string, among: readonly string[]) =>
  among.some(
    (other) =>
      nearlySame(word, other) ||
      (word.length >= 4 && other.length >= 4 && (other.startsWith(word) || word.startsWith(other))),
  );

/** Of the shorter name's words, the share found in the other: 0–1. */
export function merchantSimilarity(receipt: string, card: string): number {
  const a = nameWords(receipt);
  const b = nameWords(card);
  if (a.length === 0 || b.length === 0) return 0;
  const [few, many] = a.length <= b.length ? [a, b] : [b, a];
  return few.filter((word) => wordFound(word, many)).length / few.length;
}

/** Days from the receipt's date to the posting (negative: posted the day before). */
function daysAfter(date: string, at: string): number {
  const day = Date.parse(`${date}T00:00:00Z`);
  const posted = Date.parse(`${at.slice(0, 10)}T00:00:00Z`);
  return Math.round((posted - day) / DAY_MS);
}

interface Scored {
  candidate: MatchCandidate;
  score: number;
  reasons: MatchReason[];
  exact: boolean;
  dated: boolean;
  sameMerchant: boolean;
}

function scored(read: InboxRead, candidate: MatchCandidate): Scored | undefined {
  const total = read.totalCents as number;
  const amount = Math.abs(candidate.amountCents);
  const reasons: MatchReason[] = [];
  const exact = amount === total;
  let amountScore = 0;
  if (exact) {
    amountScore = 1;
    reasons.push('amount');
  } else {
    const tipping =
      candidate.categoryCode !== undefined &&
      TIPPING_CATEGORY_CODES.includes(candidate.categoryCode);
    const apart = Math.abs(amount - total) / Math.min(amount, total);
    if (!tipping || apart > TIP_MARGIN) return undefined;
    // 0.75 at a cent apart, 0.5 at the margin: a tip, likely, not certainly.
    amountScore = 0.75 - 0.25 * (apart / TIP_MARGIN);
    reasons.push('amount_with_tip');
  }
  let dateScore = 0.3;
  let dated = false;
  if (read.date) {
    const days = daysAfter(read.date, candidate.at);
    if (days < -EARLY_POSTING_DAYS || days > POSTING_LAG_DAYS) return undefined;
    dated = days >= 0 && days <= 3;
    dateScore = days === 0 ? 1 : dated ? 0.9 : 0.6;
    reasons.push(days === 0 ? 'date' : 'date_near');
  }
  const similarity = read.merchant
    ? Math.max(
        merchantSimilarity(read.merchant, candidate.description),
        candidate.merchant ? merchantSimilarity(read.merchant, candidate.merchant) : 0,
      )
    : 0;
  const sameMerchant = similarity >= SAME_MERCHANT;
  // An amount a tip away is a weak sign on its own: only with the merchant's name.
  if (!exact && !sameMerchant) return undefined;
  if (sameMerchant) reasons.push('merchant');
  if (!candidate.hasReceipt) reasons.push('no_receipt');
  const score =
    0.45 * amountScore + 0.25 * dateScore + 0.22 * similarity + (candidate.hasReceipt ? 0 : 0.08);
  return { candidate, score: Math.round(score * 1000) / 1000, reasons, exact, dated, sameMerchant };
}

const suggestionOf = ({ candidate, score, reasons }: Scored): InboxSuggestion => ({
  subAccountId: candidate.subAccountId,
  transactionId: candidate.id,
  description: candidate.description,
  ...(candidate.merchant ? { merchant: candidate.merchant } : {}),
  at: candidate.at,
  amountCents: candidate.amountCents,
  score: Math.min(1, score),
  reasons,
});

/**
 * The receipt's transaction among the candidates: `automatic` when certain (the exact amount,
 * a date read and 0–3 days before the posting, the same merchant, no receipt yet, and no other
 * candidate within CLEAR_LEAD or with the same amount and merchant), else the best few to
 * suggest (none when nothing fits).
 */
export function rankCandidates(
  read: InboxRead,
  candidates: readonly MatchCandidate[],
): { automatic?: InboxSuggestion; suggestions: InboxSuggestion[] } {
  if (read.totalCents === undefined) return { suggestions: [] };
  const ranked = candidates
    .flatMap((candidate) => scored(read, candidate) ?? [])
    .sort((a, b) => b.score - a.score || a.candidate.id.localeCompare(b.candidate.id));
  const [best, next] = ranked;
  const certain =
    best?.exact === true &&
    best.dated &&
    best.sameMerchant &&
    !best.candidate.hasReceipt &&
    (next === undefined ||
      (best.score - next.score >= CLEAR_LEAD && !(next.exact && next.sameMerchant)));
  if (certain && best) return { automatic: suggestionOf(best), suggestions: [] };
  return {
    suggestions: ranked
      .filter((s) => s.score >= SUGGEST_FROM)
      .slice(0, SUGGESTIONS_MAX)
      .map(suggestionOf),
  };
}
