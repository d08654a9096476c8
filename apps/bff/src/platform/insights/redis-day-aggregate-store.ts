import type { Redis } from 'ioredis';
import { redisCall } from '../redis/redis-errors';
import { redisScript } from '../redis/redis-script';
import type { DayAggregate, DayAggregateStore } from './day-aggregate-store';

/**
 * The series' key, versioned by what a day holds: days counted by an earlier definition of money
 * (docs/money.md) live under the earlier key, never read again, and expire; replicas of two
 * builds side by side each keep their own rather than overwriting each other's.
 */
export const DAY_AGGREGATE_KEY = 'insights-days-v2';

/** A series not written for this long is dropped by Redis (it is walked again if asked). */
export const DAY_AGGREGATE_TTL_MS = 30 * 86_400_000;
/** Days one series keeps at most: about eight years of periods and the ones before them. */
export const MAX_DAYS_PER_SERIES = 3_000;

// The days written, and when the series passes its bound (someone asking about many distant
// periods), it starts over from them: the others are walked again when next asked for.
const write = redisScript(`
redis.call('HSET', KEYS[1], unpack(ARGV, 3))
if redis.call('HLEN', KEYS[1]) > tonumber(ARGV[2]) then
  redis.call('DEL', KEYS[1])
  redis.call('HSET', KEYS[1], unpack(ARGV, 3))
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1
`);

/**
 * Per-day aggregates every replica shares: one hash per sub account and time zone,
 * `<prefix>insights-days-v2:<sub account>/<zone>`, a field per day holding the day's JSON, with
 * Redis's own expiry renewed on every write. Bounded: zones are canonical (the Overview's
 * `overviewQuerySchema`, a few hundred), each series holds at most `maxDays` days, and a series no
 * one writes expires.
 */
export class RedisDayAggregateStore implements DayAggregateStore {
  constructor(
    private readonly client: Redis,
    private readonly options: { prefix: string; ttlMs?: number; maxDays?: number },
  ) {}

  private key(subAccountId: string, timeZone: string) {
    return `${this.options.prefix}${DAY_AGGREGATE_KEY}:${encodeURIComponent(subAccountId)}/${encodeURIComponent(timeZone)}`;
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
    const ttlMs = this.options.ttlMs ?? DAY_AGGREGATE_TTL_MS;
    const maxDays = Math.max(this.options.maxDays ?? MAX_DAYS_PER_SERIES, days.length);
    await redisCall('day aggregates put', () =>
      write(this.client, [key], [ttlMs, maxDays, ...fields]),
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
    if (typeof parsed.money !== 'object' || typeof parsed.merchants !== 'object') {
      return undefined;
    }
    return parsed as DayAggregate;
  } catch {
    return undefined;
  }
}
