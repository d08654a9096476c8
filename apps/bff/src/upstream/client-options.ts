import type { Logger } from 'pino';
import type { Metrics } from '../platform/metrics/metrics';

export interface UpstreamClientOptions {
  baseUrl: string;
  apiKey: string;
  logger: Logger;
  /** Calls by operation and outcome, retries, the circuits, coalesced reads. Default: none. */
  metrics?: Metrics;
  /** One attempt, headers and body. Default 5 s. */
  attemptTimeoutMs?: number;
  /** One call, all attempts and waits. Default 12 s. */
  deadlineMs?: number;
  /** Retries after the first attempt, reads only. Default 2. */
  maxRetries?: number;
  backoffBaseMs?: number;
  backoffCapMs?: number;
  /**
   * Overload failures in a row (network, timeout, 429, 502, 503, 504) that open a lane's
   * circuit: its calls are then refused (503) until one, after `halfOpenAfterMs`, gets through.
   * People's calls and the bulk walks have a circuit each. Default 10, and 5 s.
   */
  breakerThreshold?: number;
  halfOpenAfterMs?: number;
  /** Largest upstream body read. Default 5 MB. */
  maxBodyBytes?: number;
  /** Keep-alive connections per upstream origin. Default 40. */
  connections?: number;
  /**
   * Bulk walks' attempts in flight at once at most (a bulkhead), fewer than `connections` so
   * people's reads always find a free connection: also the ceiling of the walks' pace, which
   * grows towards it while the card service answers well and backs off when it does not
   * (`platform/pagination/pace.ts`). Default 32.
   */
  bulkConcurrency?: number;
  /**
   * The card service's published rate limit, if it has one: `burst` requests at once, refilled
   * at `perSecond`. The walks' pace never asks for more. Default none (the pace learns it from
   * the service's 429s).
   */
  rateLimit?: { perSecond: number; burst: number } | undefined;
  /** Injected for deterministic tests. */
  random?: () => number;
  now?: () => number;
}

export const clientDefaults = {
  attemptTimeoutMs: 5_000,
  deadlineMs: 12_000,
  maxRetries: 2,
  backoffBaseMs: 100,
  backoffCapMs: 2_000,
  breakerThreshold: 10,
  halfOpenAfterMs: 5_000,
  maxBodyBytes: 5 * 1024 * 1024,
  connections: 40,
  bulkConcurrency: 32,
  random: Math.random,
  now: Date.now,
} satisfies Partial<UpstreamClientOptions>;
