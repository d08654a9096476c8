// The rate-limiter-flexible modules the BFF loads directly (see src/platform/security/rate-limiter-classes.ts).
declare module 'rate-limiter-flexible/lib/RateLimiterMemory.js' {
  const RateLimiterMemory: unknown;
  export default RateLimiterMemory;
}
declare module 'rate-limiter-flexible/lib/RateLimiterRes.js' {
  const RateLimiterRes: unknown;
  export default RateLimiterRes;
}
declare module 'rate-limiter-flexible/lib/RateLimiterStoreAbstract.js' {
  const RateLimiterStoreAbstract: unknown;
  export default RateLimiterStoreAbstract;
}
