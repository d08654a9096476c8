/**
 * What one sub account's transactions of one calendar day (in one time zone) add up to, as
 * the Overview needs them. Plain JSON, so any store can keep it. Money in integer cents.
 */
export interface DayAggregate {
  /** YYYY-MM-DD in the time zone it was computed for. */
  day: string;
  /** Will not be walked again (see `features/insights/day-aggregate.ts`, `isFinal`). */
  final: boolean;
  /** Unix ms when the walk that counted it began: every row listed by then is in it. */
  walkedAt: number;
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
  /** The days among `days` that are known, by day. Read-only: callers must not change them. */
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

/**
 * In this process only: one replica. Keeps the days as frozen objects, handed out as they are
 * (an Overview of a year reads 730 of them per request: no copy, no parse).
 */
export class MemoryDayAggregateStore implements DayAggregateStore {
  private readonly series = new Map<string, Map<string, DayAggregate>>();

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
      const got = known.get(day);
      if (got !== undefined) out.set(day, got);
    }
    return out;
  }

  async put(subAccountId: string, timeZone: string, days: readonly DayAggregate[]) {
    const key = seriesKey(subAccountId, timeZone);
    let known = this.series.get(key);
    if (known) this.series.delete(key);
    else known = new Map();
    this.series.set(key, known);
    for (const day of days) known.set(day.day, frozenCopy(day));
    while (this.series.size > this.maxSeries) {
      const oldest = this.series.keys().next().value;
      if (oldest === undefined) break;
      this.series.delete(oldest);
    }
  }
}

/** A deep copy nobody can change: what the caller keeps changing never reaches the store. */
function frozenCopy(day: DayAggregate): DayAggregate {
  const tally = (from: Record<string, [number, number]>) => {
    const out: Record<string, [number, number]> = Object.create(null);
    for (const key in from) {
      const [cents, n] = from[key] as [number, number];
      out[key] = Object.freeze([cents, n]) as [number, number];
    }
    return Object.freeze(out);
  };
  return Object.freeze({
    ...day,
    declineReasons: Object.freeze(Object.assign(Object.create(null), day.declineReasons)),
    categories: tally(day.categories),
    merchants: tally(day.merchants),
    cards: tally(day.cards),
  });
}

const seriesKey = (subAccountId: string, timeZone: string) => `${subAccountId}\u0000${timeZone}`;
