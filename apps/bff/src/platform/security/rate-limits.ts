import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { AppError } from '../../core/app-error';
import type { RateLimitConfig } from '../../env';
import { RateLimiterMemory, RateLimiterRes } from './rate-limiter-classes';

/**
 * Builds a limiter for a key space. The default keeps counters in process; for several
 * replicas, `sqlRateLimiters` (sql-rate-limiters.ts) shares them through PostgreSQL, with an
 * in-memory front and local limits while the database is unavailable. A limiter rejects with
 * RateLimiterRes when it refuses; any other rejection is its store failing.
 */
export type RateLimiterFactory = (options: {
  keyPrefix: string;
  points: number;
  duration: number;
  /**
   * A limit every request spends, where being exact to the point matters less than not
   * writing each time: a shared store may hand its points out a chunk at a time.
   */
  prepaid?: boolean;
}) => RateLimiterAbstract;

export const memoryRateLimiters: RateLimiterFactory = (options) => new RateLimiterMemory(options);

export interface RateLimiters {
  /** Sign-in attempts per `address|email`: tight, so one address cannot lock the owner out elsewhere. */
  signInPerAccountAddress: RateLimiterAbstract;
  signInPerAddress: RateLimiterAbstract;
  /** Sign-in attempts per email from everywhere: a loose ceiling against many addresses. */
  signInPerAccount: RateLimiterAbstract;
  /** Single sign-on starts per address: each writes a pending sign-in, anonymously. */
  ssoStartsPerAddress: RateLimiterAbstract;
  apiPerUser: RateLimiterAbstract;
  revealPerUser: RateLimiterAbstract;
  /** Test alerts one person sends (each may email and post to a webhook). */
  alertTestsPerUser: RateLimiterAbstract;
  /** Files uploaded per person (receipts). */
  uploadsPerUser: RateLimiterAbstract;
  /** Step-up codes checked or being checked, per session (its store key). */
  stepUpAttempts: RateLimiterAbstract;
  /** Wrong step-up codes per session; the last one allowed ends the session. */
  stepUpFailures: RateLimiterAbstract;
}

export function createRateLimiters(
  factory: RateLimiterFactory,
  limits: RateLimitConfig,
  session: { absoluteMs: number },
): RateLimiters {
  // A session's counters live as long as the session can.
  const sessionSeconds = Math.ceil(session.absoluteMs / 1000);
  return {
    signInPerAccountAddress: factory({
      keyPrefix: 'signin-account-address',
      points: limits.signInFailuresPerAccountAddress,
      duration: limits.signInWindowSeconds,
    }),
    signInPerAddress: factory({
      keyPrefix: 'signin-address',
      points: limits.signInFailuresPerAddress,
      duration: limits.signInWindowSeconds,
    }),
    signInPerAccount: factory({
      keyPrefix: 'signin-account',
      points: limits.signInFailuresPerAccount,
      duration: limits.signInWindowSeconds,
    }),
    stepUpAttempts: factory({
      keyPrefix: 'stepup-attempts',
      points: limits.stepUpFailuresPerSession,
      duration: sessionSeconds,
    }),
    stepUpFailures: factory({
      keyPrefix: 'stepup-failures',
      points: limits.stepUpFailuresPerSession,
      duration: sessionSeconds,
    }),
    ssoStartsPerAddress: factory({
      keyPrefix: 'sso-start-address',
      points: limits.ssoStartsPerAddressPerMinute,
      duration: 60,
    }),
    apiPerUser: factory({
      keyPrefix: 'api-user',
      points: limits.apiRequestsPerMinute,
      duration: 60,
      prepaid: true,
    }),
    revealPerUser: factory({
      keyPrefix: 'reveal-user',
      points: limits.revealsPerMinute,
      duration: 60,
    }),
    alertTestsPerUser: factory({
      keyPrefix: 'alert-test-user',
      points: limits.alertTestsPerMinute,
      duration: 60,
    }),
    uploadsPerUser: factory({
      keyPrefix: 'upload-user',
      points: limits.uploadsPerMinute,
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
