import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { redisCall } from '../redis/redis-errors';
import { redisScript } from '../redis/redis-script';
import {
  EXPORT_SLOT_LIFETIME_MS,
  type ExportCaps,
  type ExportSlot,
  type ExportSlots,
  heldSlot,
} from './export-slots';

// Two sorted sets, everyone's running exports and this person's, each slot scored by its lease
// expiry on Redis's clock. Lapsed slots are dropped, both caps checked and the slot added in
// one script, so replicas asking at once can never pass a cap together.
const now = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`;

const take = redisScript(`${now}
local lease = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. now)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. now)
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[3]) then return 'person' end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then return 'total' end
for _, key in ipairs(KEYS) do
  redis.call('ZADD', key, now + lease, ARGV[1])
  redis.call('PEXPIRE', key, lease)
end
return 'granted'
`);

/** Pushes a running slot's lease out (only if it is still there). */
const renew = redisScript(`${now}
local lease = tonumber(ARGV[2])
for _, key in ipairs(KEYS) do
  if redis.call('ZADD', key, 'XX', 'CH', now + lease, ARGV[1]) == 1 then
    redis.call('PEXPIRE', key, lease)
  end
end
return 1
`);

const giveBack = redisScript(`
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return 1
`);

export interface RedisExportSlotsOptions {
  prefix: string;
  /**
   * How long a slot outlives the replica holding it; renewed every third while it runs, until
   * the slot's lifetime (`ExportCaps.lifetimeMs`) is over.
   */
  leaseMs?: number;
}

/** Export caps counted across every replica: `<prefix>exports:all`, `<prefix>exports:person:<email>`. */
export class RedisExportSlots implements ExportSlots {
  private readonly leaseMs: number;

  constructor(
    private readonly client: Redis,
    private readonly caps: ExportCaps,
    private readonly options: RedisExportSlotsOptions,
  ) {
    this.leaseMs = options.leaseMs ?? 15_000;
  }

  async acquire(person: string): Promise<ExportSlot> {
    const keys = [
      `${this.options.prefix}exports:all`,
      `${this.options.prefix}exports:person:${person}`,
    ];
    const id = randomUUID();
    const args = [id, this.leaseMs];
    const outcome = await redisCall('export slot', () =>
      take(this.client, keys, [...args, this.caps.perPerson, this.caps.total]),
    );
    if (outcome === 'person' || outcome === 'total') return { granted: false, full: outcome };

    // Redis unreachable for a moment: the lease runs on, the next renewal tries again.
    const renewal = setInterval(() => {
      renew(this.client, keys, args).catch(() => {});
    }, this.leaseMs / 3);
    renewal.unref(); // never what keeps a stopping process alive
    return heldSlot(this.caps.lifetimeMs ?? EXPORT_SLOT_LIFETIME_MS, async () => {
      clearInterval(renewal);
      // A release that cannot reach Redis is not the export's failure: the lease lapses.
      await giveBack(this.client, keys, [id]).catch(() => {});
    });
  }
}
