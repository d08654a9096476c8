/**
 * What one sub account's transactions of one calendar day (in one time zone) add up to, as
 * the Overview needs them. Plain JSON, so any store can keep it. Money in integer cents.
 */
export interface DayAggregate {
  /** YYYY-MM-DD in the time zone it was computed for. */
  day: string;
  /** Will not be walked again (see `features/insights/day-aggregate.ts`, `isFinal`). */
  final: boolean;
  debitsCents: number;
  creditsCents: number;
  pendingCents: number;
  /** Every transaction, whatever its status. */
  count: number;
  /** Transactions still pending (of any kind): the day may still change. */
  pendingCount: number;
  /** Card transactions (with a card id), whatever their status: the declines' base. */
  cardCount: number;
  declines: number;
  /** Decline reason → count. */
  declineReasons: Record<string, number>;
  /** Category group → [debit cents, debits]. */
  categories: Record<string, [number, number]>;
  /** Merchant name → [debit cents, debits]. */
  merchants: Record<string, [number, number]>;
  /** Card id → [debit cents, debits]. */
  cards: Record<string, [number, number]>;
}

/**
 * Per-day aggregates, keyed by (sub account, time zone, day). Shared by every request and,
 * with a shared engine, by every replica. A store that cannot be reached throws
 * `StoreUnavailableError`.
 */
export interface DayAggregateStore {
  /** The days among `days` that are known, by day. Callers may change what they get. */
  get(
    subAccountId: string,
    timeZone: string,
    days: readonly string[],
  ): Promise<Map<string, DayAggregate>>;
  /** Stores (or replaces) these days. */
  put(subAccountId: string, timeZone: string, days: readonly DayAggregate[]): Promise<void>;
}

/** Sub account × time zone pairs one memory store keeps; the oldest used is dropped first. */
const MAX_SERIES = 500;

/** In this process only: one replica. */
export class MemoryDayAggregateStore implements DayAggregateStore {
  private readonly series = new Map<string, Map<string, string>>();

  constructor(private readonly maxSeries = MAX_SERIES) {}

  async get(subAccountId: string, timeZone: string, days: readonly string[]) {
    const out = new Map<string, DayAggregate>();
    const key = seriesKey(subAccountId, timeZone);
    const known = this.series.get(key);
    if (!known) return out;
    // Most recently used last.
    this.series.delete(key);
    this.series.set(key, known);
    for (const day of days) {
      const text = known.get(day);
      // Kept as JSON: what a caller changes never reaches the store.
      if (text !== undefined) out.set(day, JSON.parse(text) as DayAggregate);
    }
    return out;
  }

  async put(subAccountId: string, timeZone: string, days: readonly DayAggregate[]) {
    const key = seriesKey(subAccountId, timeZone);
    let known = this.series.get(key);
    if (known) this.series.delete(key);
    else known = new Map();
    this.series.set(key, known);
    for (const day of days) known.set(day.day, JSON.stringify(day));
    while (this.series.size > this.maxSeries) {
      const oldest = this.series.keys().next().value;
      if (oldest === undefined) break;
      this.series.delete(oldest);
    }
  }
}

const seriesKey = (subAccountId: string, timeZone: string) => `${subAccountId}\u0000${timeZone}`;
