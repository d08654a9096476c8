import type { Logger } from 'pino';
import { abortableSleep } from '../platform/abort-fan-out';
import type { Metrics } from '../platform/metrics/metrics';

export interface UpstreamClientOptions {
  baseUrl: string;
  apiKey: string;
  logger: Logger;
  /** Calls by operation and outcome, retries, the budgets, coalesced reads. Default: none. */
  metrics?: Metrics;
  /** One attempt, headers and body. Default 5 s. */
  attemptTimeoutMs?: number;
  /** One call, all attempts and waits. Default 12 s. */
  deadlineMs?: number;
  /** Retries after the first attempt, reads only. Default 2. */
  maxRetries?: number;
  backoffBaseMs?: number;
  backoffCapMs?: number;
  /** Retries per request allowed over time (token bucket). Default 0.2 with a burst of 10. */
  retryBudgetRatio?: number;
  retryBudgetBurst?: number;
  /**
   * Burst of the bulk walks' own budget (same ratio, deposited by bulk calls only). Default 10.
   * Bulk calls never spend the budget above, which is people's reads'.
   */
  bulkRetryBudgetBurst?: number;
  /** Largest upstream body read. Default 5 MB. */
  maxBodyBytes?: number;
  /** Keep-alive connections per upstream origin. Default 32. */
  connections?: number;
  /** Injected for deterministic tests. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  now?: () => number;
}

export const clientDefaults = {
  attemptTimeoutMs: 5_000,
  deadlineMs: 12_000,
  maxRetries: 2,
  backoffBaseMs: 100,
  backoffCapMs: 2_000,
  retryBudgetRatio: 0.2,
  retryBudgetBurst: 10,
  bulkRetryBudgetBurst: 10,
  maxBodyBytes: 5 * 1024 * 1024,
  connections: 32,
  // One listener on a shared signal for every wait at once (abort-fan-out.ts).
  sleep: abortableSleep,
  random: Math.random,
  now: Date.now,
} satisfies Partial<UpstreamClientOptions>;
