import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from '../../env';
import { RedisDayAggregateStore } from '../insights/redis-day-aggregate-store';
import { RedisKeyedLock } from '../locks/redis-keyed-lock';
import { RedisFactorStore } from '../passkeys/redis-factor-store';
import { RedisExportReceipts } from '../security/redis-export-receipts';
import { RedisExportSlots } from '../security/redis-export-slots';
import { RedisOneTimeStore } from '../security/redis-one-time-store';
import { redisRateLimiters } from '../security/redis-rate-limiters';
import { RedisUsedCodeLedger } from '../security/redis-used-code-ledger';
import { RedisSessionStore } from '../sessions/redis-session-store';

export interface RedisStoresOptions {
  /** Put before every key, so several deployments (or tests) can share one Redis. */
  prefix?: string;
  /** How long an edit waits for the card's previous edit; the in-memory lock's 10 s by default. */
  editWaitMs?: number;
  logger?: Logger;
}

/**
 * Every store whose state several replicas must share, on one Redis client, ready to hand to
 * `createApp`: sessions, rate limits and lock-outs (step-up counters included), used TOTP
 * codes, per-card edit serialisation, export caps and export receipts, passkey challenges and
 * pending single sign-ons (each bounded on its own), and the Overview's
 * per-day aggregates.
 */
export function redisStores(
  client: Redis,
  config: Pick<Config, 'exportCaps'>,
  options: RedisStoresOptions = {},
) {
  const prefix = options.prefix ?? 'cc:';
  return {
    sessionStore: new RedisSessionStore(client, prefix),
    rateLimiters: redisRateLimiters(client, prefix),
    usedCodes: new RedisUsedCodeLedger(client, prefix),
    locks: new RedisKeyedLock(client, {
      prefix,
      waitMs: options.editWaitMs ?? 10_000,
      ...(options.logger ? { logger: options.logger } : {}),
    }),
    exportSlots: new RedisExportSlots(client, config.exportCaps, { prefix }),
    exportReceipts: new RedisExportReceipts(client, { prefix }),
    factorStore: new RedisFactorStore(client, prefix),
    challengeStore: new RedisOneTimeStore(client, { prefix, kind: 'challenges' }),
    ssoPendingStore: new RedisOneTimeStore(client, { prefix, kind: 'ssoPending' }),
    dayAggregates: new RedisDayAggregateStore(client, { prefix }),
  };
}
