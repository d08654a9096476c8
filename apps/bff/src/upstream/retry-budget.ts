/**
 * A token bucket that caps retries to a fraction of requests, so that when the upstream is
 * overloaded the BFF adds at most `ratio` extra load instead of multiplying it by the retry
 * count. Every request deposits `ratio` tokens (up to `maxTokens`); every retry spends one.
 */
export interface RetryBudget {
  recordRequest(): void;
  /** True (and spends a token) when a retry is allowed now. */
  tryRetry(): boolean;
  /** Tokens in the bucket now, each worth one retry (for the metrics). */
  tokens(): number;
}

export interface RetryBudgetOptions {
  /** Retries allowed per request, long-run (0.1–0.2 is typical). */
  ratio: number;
  /** Burst allowance: retries possible before any request has deposited. */
  maxTokens: number;
}

export function createRetryBudget({ ratio, maxTokens }: RetryBudgetOptions): RetryBudget {
  let tokens = maxTokens;
  return {
    recordRequest() {
      tokens = Math.min(maxTokens, tokens + ratio);
    },
    tryRetry() {
      if (tokens < 1) return false;
      tokens -= 1;
      return true;
    },
    tokens: () => tokens,
  };
}
