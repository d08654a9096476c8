import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { RateLimitConfig } from '../../env';
import { AppError } from '../../http/app-error';

/**
 * Builds a limiter for a key space. The default keeps counters in process; for several
 * replicas pass `(o) => new RateLimiterRedis({ storeClient, ...o })` (same options).
 */
export type RateLimiterFactory = (options: {
  keyPrefix: string;
  points: number;
  duration: number;
}) => RateLimiterAbstract;

export const memoryRateLimiters: RateLimiterFactory = (options) => new RateLimiterMemory(options);

export interface RateLimiters {
  signInPerAccount: RateLimiterAbstract;
  signInPerAddress: RateLimiterAbstract;
  apiPerUser: RateLimiterAbstract;
  revealPerUser: RateLimiterAbstract;
}

export function createRateLimiters(
  factory: RateLimiterFactory,
  limits: RateLimitConfig,
): RateLimiters {
  return {
    signInPerAccount: factory({
      keyPrefix: 'signin-account',
      points: limits.signInFailuresPerAccount,
      duration: limits.signInWindowSeconds,
    }),
    signInPerAddress: factory({
      keyPrefix: 'signin-address',
      points: limits.signInFailuresPerAddress,
      duration: limits.signInWindowSeconds,
    }),
    apiPerUser: factory({
      keyPrefix: 'api-user',
      points: limits.apiRequestsPerMinute,
      duration: 60,
    }),
    revealPerUser: factory({
      keyPrefix: 'reveal-user',
      points: limits.revealsPerMinute,
      duration: 60,
    }),
  };
}

export function tooManyRequests(msBeforeNext: number, message: string): AppError {
  const retryAfterSeconds = Math.max(1, Math.ceil(msBeforeNext / 1000));
  return new AppError(429, 'rate_limited', message, { retryAfterSeconds });
}

/** Spends one point; a refusal becomes a 429 AppError with Retry-After. */
export async function consumeOrThrow(limiter: RateLimiterAbstract, key: string, message: string) {
  try {
    await limiter.consume(key);
  } catch (error) {
    if (error instanceof RateLimiterRes) throw tooManyRequests(error.msBeforeNext, message);
    throw error;
  }
}

/** Throws 429 when the key has already used every point in its window (without spending). */
export async function refuseWhenExhausted(
  limiter: RateLimiterAbstract,
  key: string,
  message: string,
) {
  const state = await limiter.get(key);
  if (state && state.consumedPoints >= limiter.points)
    throw tooManyRequests(state.msBeforeNext, message);
}
