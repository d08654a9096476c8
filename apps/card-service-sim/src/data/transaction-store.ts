import { transactionStatuses } from '@card-console/shared/upstream/transaction';
import {
  type GenerateTransactionsInput,
  generateTransactions,
  Kind,
  type TransactionColumns,
} from './generate-transactions';
import { isoDate } from './iso-date';
import { balanceStatuses, spendStatuses } from './ledger-rules';
import type { Merchant } from './merchants';
import type { Transaction } from './model';
import { hash32 } from './prng';
import { buildGroupIndexes, lowerBoundDate, lowerBoundRow } from './sorted-index';
import { counterparties, currencies, declineReasons } from './word-lists';

const STATUS_COUNT = transactionStatuses.length;
const EMPTY = new Int32Array(0);

export interface TransactionFilter {
  subIndex: number;
  fromMs?: number;
  toMs?: number;
  status?: number;
  cardIndex?: number;
}

/** Free text of one transaction a test may replace (`CardService.testing`). */
export interface TransactionText {
  description?: string;
  /** Card transactions only: `merchantData.description`. */
  merchantDescription?: string;
  declineReason?: string;
}

export interface TransactionPage {
  rows: number[];
  /** row of the last item when more data exists */
  lastRow?: number;
}

export interface StoreContext {
  seed: number;
  merchants: Merchant[];
  subAccountId: (subIndex: number) => string;
  cardId: (cardIndex: number) => string;
  cardSubIndex: (cardIndex: number) => number;
}

/**
 * Immutable transactions with per sub account, per (sub account, status), per card and per
 * (card, status) indexes, so any filtered page is two binary searches and a short walk.
 */
export class TransactionStore {
  /** Replaced, never changed in place, when a test appends a row (`append`). */
  private columns: TransactionColumns;
  private readonly bySub: Int32Array[];
  private readonly bySubStatus: Int32Array[];
  private readonly byCard: Int32Array[];
  private readonly byCardStatus: Int32Array[];
  /** Rows whose free text a test replaced; empty outside such tests. */
  private readonly textOverrides = new Map<number, TransactionText>();

  constructor(
    input: GenerateTransactionsInput & { cards: number },
    private readonly ctx: StoreContext,
  ) {
    const cols = generateTransactions(input);
    this.columns = cols;
    const n = cols.count;
    this.bySub = buildGroupIndexes(n, input.subAccounts, (r) => cols.sub[r] ?? -1);
    this.bySubStatus = buildGroupIndexes(
      n,
      input.subAccounts * STATUS_COUNT,
      (r) => (cols.sub[r] ?? 0) * STATUS_COUNT + (cols.status[r] ?? 0),
    );
    this.byCard = buildGroupIndexes(n, input.cards, (r) => cols.card[r] ?? -1);
    this.byCardStatus = buildGroupIndexes(n, input.cards * STATUS_COUNT, (r) => {
      const card = cols.card[r] ?? -1;
      return card < 0 ? -1 : card * STATUS_COUNT + (cols.status[r] ?? 0);
    });
  }

  get cols(): Readonly<TransactionColumns> {
    return this.columns;
  }

  private indexFor(filter: TransactionFilter): Int32Array {
    const { subIndex, status, cardIndex } = filter;
    if (cardIndex !== undefined) {
      if (this.ctx.cardSubIndex(cardIndex) !== subIndex) return EMPTY;
      return (
        (status === undefined
          ? this.byCard[cardIndex]
          : this.byCardStatus[cardIndex * STATUS_COUNT + status]) ?? EMPTY
      );
    }
    return (
      (status === undefined
        ? this.bySub[subIndex]
        : this.bySubStatus[subIndex * STATUS_COUNT + status]) ?? EMPTY
    );
  }

  /** Newest first by (date, row); `afterRow` is the last row of the previous page. */
  page(filter: TransactionFilter, limit: number, afterRow?: number): TransactionPage {
    const index = this.indexFor(filter);
    const dates = this.cols.date;
    const lo = filter.fromMs === undefined ? 0 : lowerBoundDate(index, dates, filter.fromMs, false);
    let hi =
      filter.toMs === undefined ? index.length : lowerBoundDate(index, dates, filter.toMs, true);
    if (afterRow !== undefined) hi = Math.min(hi, lowerBoundRow(index, afterRow));
    const rows: number[] = [];
    for (let k = hi - 1; k >= lo && rows.length < limit; k--) rows.push(index[k] ?? 0);
    const last = rows.at(-1);
    const more = hi - rows.length > lo;
    return more && last !== undefined ? { rows, lastRow: last } : { rows };
  }

  /** All rows of a sub account, newest first (for tests and figures). */
  rowsOfSub(subIndex: number): Int32Array {
    return this.bySub[subIndex] ?? EMPTY;
  }

  figures(subIndex: number): { balanceCents: number; spendCents: number } {
    let balanceCents = 0;
    let spendCents = 0;
    for (const row of this.rowsOfSub(subIndex)) {
      const status = transactionStatuses[this.cols.status[row] ?? 0] ?? 'pending';
      const amount = this.cols.amount[row] ?? 0;
      if (balanceStatuses.has(status)) balanceCents += amount;
      if ((this.cols.card[row] ?? -1) >= 0 && spendStatuses.has(status)) spendCents -= amount;
    }
    return { balanceCents, spendCents };
  }

  static idOf(row: number): string {
    return `txn_${row.toString(36).padStart(7, '0')}`;
  }

  rowOf(id: string): number | undefined {
    if (!/^txn_[0-9a-z]{7}$/.test(id)) return undefined;
    const row = Number.parseInt(id.slice(4), 36);
    return row < this.cols.count && TransactionStore.idOf(row) === id ? row : undefined;
  }

  /**
   * Adds one row after every other (a test hook: the service's own transactions are made once).
   * Rows are ordered by (date, row), so the new row's date is at least the latest one: it is
   * then the newest of every index it joins, and a cursor already handed out, which holds the
   * position of an older row, never reaches it. Each column and each index the row joins is
   * copied one longer: linear in the store's size, which is fine for a test's few rows.
   */
  append(row: {
    subIndex: number;
    /** -1: not a card transaction. */
    cardIndex: number;
    kind: number;
    status: number;
    amountCents: number;
    dateMs: number;
    merchant: number;
  }): number {
    const c = this.columns;
    const at = c.count;
    const latest = at > 0 ? (c.date[at - 1] ?? 0) : 0;
    const next: TransactionColumns = {
      count: at + 1,
      date: grown(c.date, Math.max(row.dateMs, latest)),
      amount: grown(c.amount, row.amountCents),
      status: grown(c.status, row.status),
      kind: grown(c.kind, row.kind),
      sub: grown(c.sub, row.subIndex),
      card: grown(c.card, row.cardIndex),
      merchant: grown(c.merchant, row.merchant),
      fx: grown(c.fx, 0),
      authDelta: grown(c.authDelta, 0),
    };
    this.columns = next;
    const join = (indexes: Int32Array[], group: number) => {
      indexes[group] = grown(indexes[group] ?? EMPTY, at);
    };
    join(this.bySub, row.subIndex);
    join(this.bySubStatus, row.subIndex * STATUS_COUNT + row.status);
    if (row.cardIndex >= 0) {
      join(this.byCard, row.cardIndex);
      join(this.byCardStatus, row.cardIndex * STATUS_COUNT + row.status);
    }
    return at;
  }

  /** Adds a merchant for appended rows to name (a test hook); its index. */
  addMerchant(merchant: Merchant): number {
    // The merchant column holds 16-bit indexes.
    if (this.ctx.merchants.length >= 0xffff) throw new RangeError('too many merchants');
    return this.ctx.merchants.push(merchant) - 1;
  }

  /** Replaces free text of a row (a test hook: the API never changes a transaction). */
  overrideText(row: number, text: TransactionText): void {
    this.textOverrides.set(row, { ...this.textOverrides.get(row), ...text });
  }

  /** The wire object for one row. */
  materialize(row: number): Transaction {
    return JSON.parse(this.json(row)) as Transaction;
  }

  /**
   * The wire JSON of one row, written as text: a page is 50 of these, and building objects
   * for `JSON.stringify` to walk cost twice as much. Keys go out in the order the contract
   * lists them; free text (names, descriptions) goes through `JSON.stringify`, while ids,
   * dates, digits and enum members are plain ASCII the store made itself.
   */
  json(row: number): string {
    const text = this.generatedJson(row);
    if (this.textOverrides.size === 0) return text;
    const override = this.textOverrides.get(row);
    return override ? withText(text, override) : text;
  }

  private generatedJson(row: number): string {
    const c = this.columns;
    const date = c.date[row] ?? 0;
    const amountCents = c.amount[row] ?? 0;
    const status = transactionStatuses[c.status[row] ?? 0] ?? 'pending';
    const kind = c.kind[row];
    const h = hash32(this.ctx.seed, row);
    const iso = isoDate(date);
    const head =
      `{"id":"${TransactionStore.idOf(row)}","subAccountId":"${this.ctx.subAccountId(c.sub[row] ?? 0)}",` +
      `"date":"${iso}","createdAt":`;
    const reference = `74${String(h % 1_000_000_000).padStart(9, '0')}${String(row).padStart(12, '0')}`;
    if (kind !== Kind.card) {
      const description =
        kind === Kind.initialFunding
          ? 'Initial funding'
          : kind === Kind.funding
            ? 'Funding transfer from operating account'
            : `ACH payment to ${counterparties[c.merchant[row] ?? 0] ?? 'Counterparty'}`;
      return (
        `${head}"${iso}","description":${JSON.stringify(description)},"amountCents":${amountCents},` +
        `"status":"${status}","referenceNumber":"${reference}"}`
      );
    }
    const merchant = this.ctx.merchants[c.merchant[row] ?? 0];
    const authorizedAt = isoDate(date - (c.authDelta[row] ?? 0));
    let text =
      `${head}"${authorizedAt}","description":${JSON.stringify(merchant?.name ?? 'Merchant')},` +
      `"amountCents":${amountCents},"status":"${status}","referenceNumber":"${reference}",` +
      `"authorizedAt":"${authorizedAt}","cardId":"${this.ctx.cardId(c.card[row] ?? 0)}",` +
      `"merchantData":{"description":${JSON.stringify(merchant?.raw ?? 'MERCHANT')},` +
      `"categoryCode":${JSON.stringify(merchant?.mcc ?? '5999')}}`;
    const currency = currencies[(c.fx[row] ?? 0) - 1];
    if (currency) {
      const jitter = 1 + (((h >>> 8) % 401) - 200) / 10_000;
      const rate = Math.round(currency.usdPerUnit * jitter * 1e6) / 1e6;
      text +=
        `,"originalCurrency":{"code":${JSON.stringify(currency.code)},` +
        `"amountCents":${Math.round(amountCents / rate)},"conversionRate":${rate}}`;
    }
    const declineReason = status === 'declined' ? declineReasons[h % declineReasons.length] : '';
    if (declineReason) text += `,"declineReason":${JSON.stringify(declineReason)}`;
    return `${text}}`;
  }
}

/** A copy of `array` one longer, `value` last. */
function grown<T extends Float64Array | Int32Array | Uint32Array | Uint16Array | Uint8Array>(
  array: T,
  value: number,
): T {
  const out = new (array.constructor as new (length: number) => T)(array.length + 1);
  out.set(array);
  out[array.length] = value;
  return out;
}

/** A row's JSON with a test's free text in place of its own (key order kept). */
function withText(json: string, text: TransactionText): string {
  const t = JSON.parse(json) as Transaction;
  if (text.description !== undefined) t.description = text.description;
  if (text.merchantDescription !== undefined && t.merchantData) {
    t.merchantData.description = text.merchantDescription;
  }
  if (text.declineReason !== undefined) t.declineReason = text.declineReason;
  return JSON.stringify(t);
}
