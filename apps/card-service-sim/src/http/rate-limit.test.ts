import { describe, expect, it } from 'vitest';
import { expectError, useService } from '../test-support/harness';

describe('rate limit', () => {
  let clock = 1_800_000_000_000;
  const h = useService({
    transactions: 100,
    rateLimit: { capacity: 3, refillPerSecond: 0.5 },
    now: () => clock,
  });

  it('answers 429 with the error body and Retry-After once the bucket is empty, then recovers', async () => {
    for (let i = 0; i < 3; i++) expect((await h.request('/sub-account')).status).toBe(200);
    const limited = await h.request('/sub-account');
    expectError(limited, 429, 'rate_limited');
    expect(limited.headers.get('retry-after')).toBe('2');
    clock += 1_000;
    expect((await h.request('/sub-account')).headers.get('retry-after')).toBe('1');
    clock += 1_000;
    expect((await h.request('/sub-account')).status).toBe(200);
  });
});
