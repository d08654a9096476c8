// The Overview's per-day aggregates in the SQL engine, shared by every replica on PostgreSQL
// (tables in migrations/transaction-index/20261129120000000_shared-factors-and-day-aggregates.sql).
import type { SqlEngine } from '../sql/sql-engine';
import type { DayAggregate, DayAggregateStore } from './day-aggregate-store';

/**
 * What a stored day holds, as a version its rows are keyed by. Raise it when a day's content
 * changes meaning (as the definition of money did, docs/money.md): days counted the earlier
 * way are never read again and expire, and replicas of two builds side by side each keep their
 * own rather than overwriting each other's. 2 follows the days Redis kept as insights-days-v2.
 */
export const DAY_AGGREGATE_VERSION = 2;

/** A series not written for this long is no longer read, and deleted by a later write. */
export const DAY_AGGREGATE_TTL_MS = 30 * 86_400_000;
/** Days one series keeps at most: about eight years of periods and the ones before them. */
export const MAX_DAYS_PER_SERIES = 3_000;
/** Expired series one write deletes at most, so no write carries a long backlog alone. */
export const SWEPT_PER_WRITE = 100;

/**
 * Per-day aggregates every replica shares: a series per version, sub account and time zone,
 * whose expiry (by the database's clock) each write renews, with a row per day holding its
 * JSON. Bounded: zones are canonical (`overviewQuerySchema`), a series past `maxDays` days
 * starts over from the days just written, and expired series are deleted as writes come.
 */
export class SqlDayAggregateStore implements DayAggregateStore {
  constructor(
    private readonly engine: SqlEngine,
    private readonly options: { ttlMs?: number; maxDays?: number } = {},
  ) {}

  async get(subAccountId: string, timeZone: string, days: readonly string[]) {
    const out = new Map<string, DayAggregate>();
    if (days.length === 0) return out;
    const rows = await this.engine.query<{ day: string; aggregate: string }>(
      `SELECT d.day, d.aggregate
         FROM insights_day_series s
         JOIN insights_day d USING (version, sub_account_id, time_zone)
        WHERE s.version = $1 AND s.sub_account_id = $2 AND s.time_zone = $3
          AND s.expires_at > now() AND d.day = ANY($4::text[])`,
      [DAY_AGGREGATE_VERSION, subAccountId, timeZone, [...days]],
    );
    for (const { day, aggregate } of rows) {
      const parsed = parse(aggregate, day);
      if (parsed) out.set(day, parsed);
    }
    return out;
  }

  async put(subAccountId: string, timeZone: string, days: readonly DayAggregate[]) {
    if (days.length === 0) return;
    // A day given twice: the last one, as a map would keep it.
    const byDay = new Map(days.map((d) => [d.day, JSON.stringify(d)]));
    const ttlMs = this.options.ttlMs ?? DAY_AGGREGATE_TTL_MS;
    const maxDays = Math.max(this.options.maxDays ?? MAX_DAYS_PER_SERIES, byDay.size);
    const series = [DAY_AGGREGATE_VERSION, subAccountId, timeZone];
    await this.engine.query(
      `DELETE FROM insights_day_series
        WHERE (version, sub_account_id, time_zone) IN (
          SELECT version, sub_account_id, time_zone FROM insights_day_series
           WHERE expires_at <= now() ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED)`,
      [SWEPT_PER_WRITE],
    );
    await this.engine.transaction(async (tx) => {
      // An expired series is gone, as if swept: its days are not renewed with it.
      await tx.query(
        `DELETE FROM insights_day_series
          WHERE version = $1 AND sub_account_id = $2 AND time_zone = $3 AND expires_at <= now()`,
        series,
      );
      // The series' row, locked until this write commits: writes of one series queue here.
      await tx.query(
        `INSERT INTO insights_day_series (version, sub_account_id, time_zone, expires_at)
         VALUES ($1, $2, $3, now() + $4::bigint * interval '1 millisecond')
         ON CONFLICT (version, sub_account_id, time_zone)
         DO UPDATE SET expires_at = EXCLUDED.expires_at`,
        [...series, ttlMs],
      );
      await tx.query(
        `INSERT INTO insights_day (version, sub_account_id, time_zone, day, aggregate)
         SELECT $1::smallint, $2::text, $3::text, d.day, d.aggregate
           FROM unnest($4::text[], $5::text[]) AS d (day, aggregate)
         ON CONFLICT (version, sub_account_id, time_zone, day)
         DO UPDATE SET aggregate = EXCLUDED.aggregate`,
        [...series, [...byDay.keys()], [...byDay.values()]],
      );
      // Past its bound (someone asking about many distant periods) the series starts over
      // from the days just written: the others are walked again when next asked for.
      await tx.query(
        `DELETE FROM insights_day
          WHERE version = $1 AND sub_account_id = $2 AND time_zone = $3
            AND day <> ALL($4::text[])
            AND (SELECT count(*) FROM insights_day
                  WHERE version = $1 AND sub_account_id = $2 AND time_zone = $3) > $5::bigint`,
        [...series, [...byDay.keys()], maxDays],
      );
    });
  }
}

/** A value this store wrote for `day`; anything else is as good as unknown (walked again). */
function parse(value: string, day: string): DayAggregate | undefined {
  try {
    const parsed = JSON.parse(value) as Partial<DayAggregate> | null;
    if (!parsed || parsed.day !== day || typeof parsed.final !== 'boolean') return undefined;
    if (typeof parsed.walkedAt !== 'number') return undefined;
    if (typeof parsed.money !== 'object' || typeof parsed.merchants !== 'object') {
      return undefined;
    }
    return parsed as DayAggregate;
  } catch {
    return undefined;
  }
}
