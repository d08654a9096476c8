import type { Redis } from 'ioredis';
import { redisCall } from '../redis/redis-errors';
import type { DayAggregate, DayAggregateStore } from './day-aggregate-store';

/** A series not written for this long is dropped by Redis (it is walked again if asked). */
export const DAY_AGGREGATE_TTL_MS = 30 * 86_400_000;

/**
 * Per-day aggregates every replica shares: one hash per sub account and time zone,
 * `<prefix>insights-days:<sub account>/<zone>`, a field per day holding the day's JSON, with
 * Redis's own expiry renewed on every write.
 */
export class RedisDayAggregateStore implements DayAggregateStore {
  constructor(
    private readonly client: Redis,
    private readonly options: { prefix: string; ttlMs?: number },
  ) {}

  private key(subAccountId: string, timeZone: string) {
    return `${this.options.prefix}insights-days:${encodeURIComponent(subAccountId)}/${encodeURIComponent(timeZone)}`;
  }

  async get(subAccountId: string, timeZone: string, days: readonly string[]) {
    const out = new Map<string, DayAggregate>();
    if (days.length === 0) return out;
    const values = await redisCall('day aggregates get', () =>
      this.client.hmget(this.key(subAccountId, timeZone), ...days),
    );
    days.forEach((day, i) => {
      const parsed = parse(values[i] ?? null, day);
      if (parsed) out.set(day, parsed);
    });
    return out;
  }

  async put(subAccountId: string, timeZone: string, days: readonly DayAggregate[]) {
    if (days.length === 0) return;
    const key = this.key(subAccountId, timeZone);
    const fields = days.flatMap((d) => [d.day, JSON.stringify(d)]);
    await redisCall('day aggregates put', () =>
      this.client
        .multi()
        .hset(key, ...fields)
        .pexpire(key, this.options.ttlMs ?? DAY_AGGREGATE_TTL_MS)
        .exec(),
    );
  }
}

/** A value this store wrote for `day`; anything else is as good as unknown (walked again). */
function parse(value: string | null, day: string): DayAggregate | undefined {
  if (value === null) return undefined;
  try {
    const parsed = JSON.parse(value) as Partial<DayAggregate> | null;
    if (!parsed || parsed.day !== day || typeof parsed.final !== 'boolean') return undefined;
    // Written before days carried when they were walked: walked again.
    if (typeof parsed.walkedAt !== 'number') return undefined;
    if (typeof parsed.debitsCents !== 'number' || typeof parsed.merchants !== 'object') {
      return undefined;
    }
    return parsed as DayAggregate;
  } catch {
    return undefined;
  }
}
