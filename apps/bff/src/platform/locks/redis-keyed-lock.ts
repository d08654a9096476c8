import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { redisCall } from '../redis/redis-errors';
import { redisScript } from '../redis/redis-script';
import { type KeyedLock, LockWaitTimeoutError } from './keyed-lock';

// Per lock key: `:seq` hands out tickets (arrival order), `:queue` holds the waiting tokens by
// ticket, `:alive` the same tokens by lease expiry (Redis's own clock, so replicas' clocks do
// not matter). The holder is the lowest ticket still alive; a token whose lease lapsed (its
// replica died or stalled) is dropped by whoever looks next. Every touch pushes the three
// keys' expiry out, so a key everyone abandoned disappears by itself.
const shared = `
local seq, queue, alive = KEYS[1], KEYS[2], KEYS[3]
local token, lease, keep = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local function try()
  for _, dead in ipairs(redis.call('ZRANGEBYSCORE', alive, '-inf', '(' .. now)) do
    redis.call('ZREM', queue, dead)
    redis.call('ZREM', alive, dead)
  end
  local head
  while true do
    head = redis.call('ZRANGE', queue, 0, 0)[1]
    if not head or redis.call('ZSCORE', alive, head) then break end
    redis.call('ZREM', queue, head)
  end
  if not redis.call('ZSCORE', queue, token) then return -1 end
  redis.call('ZADD', alive, now + lease, token)
  for _, key in ipairs(KEYS) do redis.call('PEXPIRE', key, keep) end
  if head == token then return 1 end
  return 0
end
`;

/** Takes a ticket and tries at once: 1 holding, 0 waiting. */
const enqueue = redisScript(`${shared}
redis.call('ZADD', queue, redis.call('INCR', seq), token)
redis.call('ZADD', alive, now + lease, token)
return try()
`);

/** Renews a waiter's or holder's lease: 1 holding, 0 waiting, -1 no longer queued. */
const poll = redisScript(`${shared}
return try()
`);

const release = redisScript(`
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
if redis.call('ZCARD', KEYS[2]) == 0 then redis.call('DEL', KEYS[1], KEYS[2], KEYS[3]) end
return 1
`);

export interface RedisKeyedLockOptions {
  prefix: string;
  /** How long a task waits for the key before LockWaitTimeoutError. */
  waitMs: number;
  /** How long a holder or waiter that stops renewing keeps its place; renewed every third. */
  leaseMs?: number;
  /** How often a waiter asks whether its turn has come. */
  pollMs?: number;
  logger?: Logger;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * One card's edits one at a time across every replica, in the order they reached Redis (a
 * ticket per arrival). Leases renewed while a task runs mean a replica that dies mid-edit
 * holds the card for at most `leaseMs`. Waiters poll: edits of one card rarely collide, and
 * polling needs no second connection.
 */
export class RedisKeyedLock implements KeyedLock {
  private readonly leaseMs: number;
  private readonly pollMs: number;

  constructor(
    private readonly client: Redis,
    private readonly options: RedisKeyedLockOptions,
  ) {
    this.leaseMs = options.leaseMs ?? 10_000;
    this.pollMs = options.pollMs ?? 15;
  }

  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const base = `${this.options.prefix}lock:${key}`;
    const keys = [`${base}:seq`, `${base}:queue`, `${base}:alive`];
    const token = randomUUID();
    const args = [token, this.leaseMs, this.leaseMs * 2];
    await this.acquire(key, keys, args);

    let lost = false;
    const renewal = setInterval(() => {
      poll(this.client, keys, args).then(
        (state) => {
          if (state === 1 || lost) return;
          lost = true;
          this.options.logger?.error(
            { lock: key },
            'lock lease lost while its task ran: another replica may now run the same key',
          );
        },
        // Redis unreachable: the lease runs on; the next renewal tries again.
        () => {},
      );
    }, this.leaseMs / 3);
    renewal.unref(); // never what keeps a stopping process alive
    try {
      return await task();
    } finally {
      clearInterval(renewal);
      // A failed release is not the task's failure: the lease lapses by itself.
      await release(this.client, keys, [token]).catch(() => {});
    }
  }

  private async acquire(key: string, keys: string[], args: (string | number)[]): Promise<void> {
    const deadline = Date.now() + this.options.waitMs;
    try {
      let state = await redisCall('lock', () => enqueue(this.client, keys, args));
      while (state !== 1) {
        const left = deadline - Date.now();
        if (left <= 0) {
          await release(this.client, keys, [args[0] as string]).catch(() => {});
          throw new LockWaitTimeoutError(key, this.options.waitMs);
        }
        await sleep(Math.min(this.pollMs, left));
        state = await redisCall('lock', () => poll(this.client, keys, args));
        // Redis forgot the queue (restarted empty): queue again.
        if (state === -1) state = await redisCall('lock', () => enqueue(this.client, keys, args));
      }
    } catch (error) {
      if (!(error instanceof LockWaitTimeoutError)) {
        await release(this.client, keys, [args[0] as string]).catch(() => {});
      }
      throw error;
    }
  }
}
