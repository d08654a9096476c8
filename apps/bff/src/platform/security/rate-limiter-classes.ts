/// <reference path="../../../types/rate-limiter-flexible-modules.d.ts" />
// rate-limiter-flexible's in-memory limiter and its answer class, loaded on their own.
// `import … from 'rate-limiter-flexible'` loads every store it supports (Mongo, MySQL,
// DynamoDB, Prisma, …) at start-up, about 6 MB of an idle BFF's RSS; the BFF needs these two
// (and the store base class sql-rate-limiters.ts builds on, loaded the same way). The package
// is pinned and its index requires these same files, so `instanceof RateLimiterRes` holds
// across every way in (the SQL limiter's refusals are checked by the contract tests).
import type {
  RateLimiterMemory as MemoryType,
  RateLimiterRes as ResType,
} from 'rate-limiter-flexible';
import MemoryModule from 'rate-limiter-flexible/lib/RateLimiterMemory.js';
import ResModule from 'rate-limiter-flexible/lib/RateLimiterRes.js';

export const RateLimiterMemory = MemoryModule as typeof MemoryType;
export type RateLimiterMemory = MemoryType;
export const RateLimiterRes = ResModule as typeof ResType;
export type RateLimiterRes = ResType;
