import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { rateLimitersContract } from './rate-limiters.contract';
import { memoryRateLimiters, type RateLimiterFactory } from './rate-limits';

rateLimitersContract('memoryRateLimiters', async () => {
  // One process: both "replicas" are the same limiter for a name.
  const made = new Map<string, RateLimiterAbstract>();
  const factory: RateLimiterFactory = (options) => {
    const limiter = made.get(options.keyPrefix) ?? memoryRateLimiters(options);
    made.set(options.keyPrefix, limiter);
    return limiter;
  };
  return { a: factory, b: factory };
});
