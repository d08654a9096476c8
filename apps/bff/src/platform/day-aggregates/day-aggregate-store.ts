import type { MoneySummary } from '@card-console/shared/money-definition';

/**
 * What one sub account's transactions of one calendar day (in one time zone) add up to, as
 * the Overview needs them. Plain JSON, so any store can keep it. Money in integer cents.
 */
export interface DayAggregate {
  /** YYYY-MM-DD in the time zone it was computed for. */
  day: string;
  /** Will not be walked again (see `features/overview/day-aggregate.ts`, `isFinal`). */
  final: boolean;
  /** Unix ms when the walk that counted it began: every row listed by then is in it. */
  walkedAt: number;
  /** The day's rows by the one definition of money (`summarize`): every row in one bucket. */
  money: MoneySummary;
  /** Every transaction, whatever its status. */
  count: number;
  /** Transactions still pending (of any kind): the day may still change. */
  pendingCount: number;
  /** Card transactions (with a card id), whatever their status: the declines' base. */
  cardCount: number;
  declines: number;
  /** Decline reason → count. */
  declineReasons: Record<string, number>;
  /** Category group → [net card spend cents, card rows]: card spend only (`isCardSpend`). */
  categories: Record<string, [number, number]>;
  /** Merchant name → [net card spend cents, card rows]. */
  merchants: Record<string, [number, number]>;
  /** Card id → [net card spend cents, card rows]. */
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
/** Estimated bytes one memory store keeps by default; the oldest used series go first. */
export const DEFAULT_MAX_BYTES = 128 * 1024 * 1024;

interface Series {
  days: Map<string, DayAggregate>;
  bytes: number;
}

/**
 * In this process only: one replica. Keeps the days as frozen objects, handed out as they are
 * (an Overview of a year reads 730 of them per request: no copy, no parse).
 *
 * Bounded by series and by bytes (`estimatedBytes`): past either bound the least recently
 * used series are dropped, and a series that alone passes the byte bound (one sub account
 * asked about many distant periods) drops its least recently written days. A dropped day is
 * walked again when next asked for.
 */
export class MemoryDayAggregateStore implements DayAggregateStore {
  private readonly series = new Map<string, Series>();
  private readonly maxSeries: number;
  private readonly maxBytes: number;
  private total = 0;

  constructor(options: { maxSeries?: number; maxBytes?: number } = {}) {
    this.maxSeries = options.maxSeries ?? MAX_SERIES;
    this.maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  }

  /** Estimated bytes held now. */
  get bytes(): number {
    return this.total;
  }

  async get(subAccountId: string, timeZone: string, days: readonly string[]) {
    const out = new Map<string, DayAggregate>();
    const key = seriesKey(subAccountId, timeZone);
    const known = this.series.get(key);
    if (!known) return out;
    // Most recently used last.
    this.series.delete(key);
    this.series.set(key, known);
    for (const day of days) {
      const got = known.days.get(day);
      if (got !== undefined) out.set(day, got);
    }
    return out;
  }

  async put(subAccountId: string, timeZone: string, days: readonly DayAggregate[]) {
    const key = seriesKey(subAccountId, timeZone);
    const known = this.series.get(key) ?? { days: new Map(), bytes: 0 };
    this.series.delete(key);
    this.series.set(key, known);
    const written = new Set(days.map((d) => d.day));
    for (const day of days) {
      this.drop(known, day.day);
      // Most recently written last.
      const copy = frozenCopy(day);
      const size = estimatedBytes(copy);
      known.days.set(day.day, copy);
      known.bytes += size;
      this.total += size;
    }
    while (this.series.size > this.maxSeries || this.total > this.maxBytes) {
      const [oldestKey, oldest] = this.series.entries().next().value ?? [];
      if (oldestKey === undefined || oldest === undefined) break;
      if (oldest !== known) {
        this.series.delete(oldestKey);
        this.total -= oldest.bytes;
        continue;
      }
      // Only the series just written is left, and it alone is too large: its least recently
      // written days go, never those of this put (written last, so once the oldest is one of
      // them, only they are left).
      const stale = known.days.keys().next().value;
      if (stale === undefined || written.has(stale)) break;
      this.drop(known, stale);
    }
  }

  private drop(series: Series, day: string) {
    const old = series.days.get(day);
    if (!old) return;
    series.days.delete(day);
    const size = estimatedBytes(old);
    series.bytes -= size;
    this.total -= size;
  }
}

/** One stored day with empty tallies, with its map entry: measured on Node 20 (with margin). */
const DAY_BYTES = 700;
/** A tally with something in it: a dictionary-mode object (measured). */
const TALLY_BYTES = 400;
/** Each tallied key: its dictionary slot and frozen pair (measured), plus its text as UTF-16. */
const ENTRY_BYTES = 100;

/** About what a stored day costs in memory, from its tallies' sizes. */
export function estimatedBytes(day: DayAggregate): number {
  let bytes = DAY_BYTES;
  for (const tally of [day.declineReasons, day.categories, day.merchants, day.cards]) {
    let keys = 0;
    for (const key in tally) {
      keys += 1;
      bytes += ENTRY_BYTES + 2 * key.length;
    }
    if (keys > 0) bytes += TALLY_BYTES;
  }
  return bytes;
}

/** Every empty tally of every stored day: most days of a quiet sub account have nothing. */
const EMPTY = Object.freeze(Object.create(null));

/** A deep copy nobody can change: what the caller keeps changing never reaches the store. */
function frozenCopy(day: DayAggregate): DayAggregate {
  const isEmpty = (from: object) => {
    for (const _ in from) return false;
    return true;
  };
  const tally = (from: Record<string, [number, number]>) => {
    if (isEmpty(from)) return EMPTY;
    const out: Record<string, [number, number]> = Object.create(null);
    for (const key in from) {
      const [cents, n] = from[key] as [number, number];
      out[key] = Object.freeze([cents, n]) as [number, number];
    }
    return Object.freeze(out);
  };
  return Object.freeze({
    ...day,
    money: Object.freeze(
      Object.fromEntries(
        Object.entries(day.money).map(([bucket, figure]) => [bucket, Object.freeze({ ...figure })]),
      ),
    ) as MoneySummary,
    declineReasons: isEmpty(day.declineReasons)
      ? EMPTY
      : Object.freeze(Object.assign(Object.create(null), day.declineReasons)),
    categories: tally(day.categories),
    merchants: tally(day.merchants),
    cards: tally(day.cards),
  });
}

const seriesKey = (subAccountId: string, timeZone: string) => `${subAccountId}\u0000${timeZone}`;
