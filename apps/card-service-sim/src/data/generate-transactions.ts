import { transactionStatuses } from '@card-console/shared/upstream/transaction';
import { balanceStatuses } from './ledger-rules';
import { intBetween, mulberry32, type Rng } from './prng';
import { counterparties, currencies } from './word-lists';

/** Transaction kinds, stored per row. */
export const Kind = { initialFunding: 0, card: 1, funding: 2, payment: 3 } as const;

export const statusCode = Object.fromEntries(transactionStatuses.map((s, i) => [s, i])) as Record<
  (typeof transactionStatuses)[number],
  number
>;

/**
 * Column storage: one typed array per field, rows sorted by (date, index) ascending.
 * A million rows take ~40 MB and are materialized to JSON objects only when served.
 */
export interface TransactionColumns {
  count: number;
  date: Float64Array;
  amount: Float64Array;
  status: Uint8Array;
  kind: Uint8Array;
  sub: Uint32Array;
  card: Int32Array;
  merchant: Uint16Array;
  fx: Uint8Array;
  authDelta: Int32Array;
}

export interface GenerateTransactionsInput {
  seed: number;
  count: number;
  subAccounts: number;
  /** card indexes per sub account */
  cardsBySub: number[][];
  merchants: number;
  windowStartMs: number;
  nowMs: number;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

function logUniformCents(rng: Rng, min: number, max: number): number {
  return Math.round(Math.exp(Math.log(min) + rng() * (Math.log(max) - Math.log(min))));
}

function weighted(rng: Rng, weights: readonly (readonly [number, number])[]): number {
  let r = rng();
  for (const [value, weight] of weights) {
    r -= weight;
    if (r < 0) return value;
  }
  return weights[0]?.[0] ?? 0;
}

const s = statusCode;
// Card payments older than the last three days have all settled or ended, as a real
// program's authorisations do within days: only the recent ones are still pending.
const cardStatusWeights = [
  [s.settled, 0.825],
  [s.declined, 0.06],
  [s.canceled, 0.03],
  [s.refund, 0.04],
  [s.reversed, 0.03],
  [s.dispute, 0.015],
] as const;
const fundingStatusWeights = [
  [s.settled, 0.95],
  [s.failed, 0.05],
] as const;
const paymentStatusWeights = [
  [s.settled, 0.85],
  [s.failed, 0.07],
  [s.returned, 0.08],
] as const;

export function generateTransactions(input: GenerateTransactionsInput): TransactionColumns {
  const { count: n, subAccounts, cardsBySub, windowStartMs, nowMs } = input;
  const rng = mulberry32(input.seed ^ 0x7a11_5eed);
  const cols: TransactionColumns = {
    count: n,
    date: new Float64Array(n),
    amount: new Float64Array(n),
    status: new Uint8Array(n),
    kind: new Uint8Array(n),
    sub: new Uint32Array(n),
    card: new Int32Array(n).fill(-1),
    merchant: new Uint16Array(n),
    fx: new Uint8Array(n),
    authDelta: new Int32Array(n),
  };
  // Each sub account opens with one funding credit, a minute apart, at the window start.
  const openings = Math.min(subAccounts, n);
  for (let k = 0; k < openings; k++) {
    cols.date[k] = windowStartMs + k * 60_000;
    cols.kind[k] = Kind.initialFunding;
    cols.status[k] = s.settled;
    cols.sub[k] = k;
  }
  const firstRandomMs = windowStartMs + openings * 60_000;
  const span = Math.max(0, nowMs - firstRandomMs);
  for (let i = openings; i < n; i++) cols.date[i] = firstRandomMs + Math.floor(rng() * (span + 1));
  cols.date.subarray(openings).sort();

  // Some sub accounts are busier than others.
  const subWeights = Array.from({ length: subAccounts }, (_, k) => 1 / (1 + k * 0.5));
  const totalWeight = subWeights.reduce((a, b) => a + b, 0);
  const subCumulative = subWeights.map(
    (_, k) => subWeights.slice(0, k + 1).reduce((a, b) => a + b, 0) / totalWeight,
  );
  const recentMs = nowMs - 3 * DAY_MS;

  for (let i = openings; i < n; i++) {
    const r0 = rng();
    let sub = subCumulative.findIndex((c) => r0 < c);
    if (sub < 0) sub = subAccounts - 1;
    cols.sub[i] = sub;
    const subCards = cardsBySub[sub] ?? [];
    const r = rng();
    if (r < 0.9 && subCards.length > 0) {
      cols.kind[i] = Kind.card;
      cols.card[i] = subCards[Math.floor(rng() * subCards.length)] ?? -1;
      cols.merchant[i] = Math.floor(rng() * input.merchants);
      const date = cols.date[i] ?? 0;
      // A decline is final when the card is authorised; of the last three days' approved
      // payments, most are still pending.
      const outcome = weighted(rng, cardStatusWeights);
      const status = date > recentMs && outcome !== s.declined && rng() < 0.7 ? s.pending : outcome;
      cols.status[i] = status;
      const cents = logUniformCents(rng, 300, 250_000);
      cols.amount[i] = status === s.refund ? cents : -cents;
      const quick = status === s.pending || status === s.declined || status === s.canceled;
      cols.authDelta[i] = quick ? intBetween(rng, 0, 60_000) : intBetween(rng, HOUR_MS, 3 * DAY_MS);
      if (rng() < 0.07) cols.fx[i] = 1 + Math.floor(rng() * currencies.length);
    } else if (r < 0.95) {
      cols.kind[i] = Kind.funding;
      cols.status[i] = weighted(rng, fundingStatusWeights);
      cols.amount[i] = intBetween(rng, 50, 500) * 10_000;
      cols.merchant[i] = Math.floor(rng() * counterparties.length);
    } else {
      cols.kind[i] = Kind.payment;
      cols.status[i] = weighted(rng, paymentStatusWeights);
      cols.amount[i] = -logUniformCents(rng, 10_000, 2_000_000);
      cols.merchant[i] = Math.floor(rng() * counterparties.length);
    }
  }

  // Size each opening credit so every sub account ends with a positive balance.
  const balances = new Float64Array(subAccounts);
  for (let i = openings; i < n; i++) {
    const status = transactionStatuses[cols.status[i] ?? 0] ?? 'pending';
    if (balanceStatuses.has(status)) {
      const sub = cols.sub[i] ?? 0;
      balances[sub] = (balances[sub] ?? 0) + (cols.amount[i] ?? 0);
    }
  }
  for (let k = 0; k < openings; k++) {
    cols.amount[k] = Math.max(0, -(balances[k] ?? 0)) + intBetween(rng, 50, 500) * 100_000;
  }
  return cols;
}
