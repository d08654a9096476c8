import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { StoreUnavailableError } from '../store-unavailable';
import type { RateLimiterFactory } from './rate-limits';

type Options = Parameters<RateLimiterRedis['consume']>[2];

/**
 * RateLimiterRedis whose store failures are a 503, not a 500: a refusal still rejects with
 * RateLimiterRes (a 429), anything else (Redis gone, timed out) becomes StoreUnavailableError,
 * so every caller (reservations, step-up, the per-user limits) fails the same clear way.
 */
class FailFastRateLimiterRedis extends RateLimiterRedis {
  private translate(operation: string) {
    return (error: unknown): never => {
      if (error instanceof RateLimiterRes || error instanceof StoreUnavailableError) throw error;
      throw new StoreUnavailableError('redis', `rate limit ${operation} (${this.keyPrefix})`, {
        cause: error,
      });
    };
  }

  override consume(key: string | number, points?: number, options?: Options) {
    return super.consume(key, points, options).catch(this.translate('consume'));
  }

  override penalty(key: string | number, points?: number, options?: Options) {
    return super.penalty(key, points, options).catch(this.translate('penalty'));
  }

  override reward(key: string | number, points?: number, options?: Options) {
    return super.reward(key, points, options).catch(this.translate('reward'));
  }

  override get(key: string | number, options?: Options) {
    return super.get(key, options).catch(this.translate('get'));
  }

  override set(key: string | number, points: number, secDuration: number, options?: Options) {
    return super.set(key, points, secDuration, options).catch(this.translate('set'));
  }

  override block(key: string | number, secDuration: number, options?: Options) {
    return super.block(key, secDuration, options).catch(this.translate('block'));
  }

  override delete(key: string | number, options?: Options) {
    return super.delete(key, options).catch(this.translate('delete'));
  }
}

/**
 * Counters every replica shares: each `consume` is one Lua script (INCRBY with the window as
 * the key's TTL), atomic in Redis, so an attempt reservation holds across replicas. Keys are
 * `<prefix>rl:<limiter>:<key>`.
 */
export function redisRateLimiters(client: Redis, prefix: string): RateLimiterFactory {
  return (options) =>
    new FailFastRateLimiterRedis({
      storeClient: client,
      keyPrefix: `${prefix}rl:${options.keyPrefix}`,
      points: options.points,
      duration: options.duration,
      // Refused at once while disconnected rather than handed to the client.
      rejectIfRedisNotReady: true,
    });
}
