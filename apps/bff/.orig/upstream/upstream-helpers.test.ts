import { describe, expect, it } from 'vitest';
import { fullJitterDelay } from './backoff';
import { buildRequest } from './operations';
import { parseRetryAfter } from './retry-after';
import { createRetryBudget } from './retry-budget';
import { maskDigitRuns, safeUpstreamMessage } from './safe-message';

describe('Retry-After', () => {
  const now = Date.UTC(2026, 0, 1, 12, 0, 0);
  it('reads delta seconds', () => expect(parseRetryAfter('3', now)).toBe(3000));
  it('reads an HTTP date', () =>
    expect(parseRetryAfter(new Date(now + 5000).toUTCString(), now)).toBe(5000));
  it('never gives a negative wait for a past date', () =>
    expect(parseRetryAfter(new Date(now - 5000).toUTCString(), now)).toBe(0));
  it('ignores garbage and absence', () => {
    expect(parseRetryAfter('soon-ish', now)).toBeUndefined();
    expect(parseRetryAfter('-1', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});

describe('full-jitter backoff', () => {
  it('stays under the doubling ceiling and the cap', () => {
    const opts = { baseMs: 100, capMs: 1000 };
    expect(fullJitterDelay(0, { ...opts, random: () => 0.999 })).toBeLessThan(100);
    expect(fullJitterDelay(2, { ...opts, random: () => 0.999 })).toBeLessThan(400);
    expect(fullJitterDelay(9, { ...opts, random: () => 0.999 })).toBeLessThan(1000);
    expect(fullJitterDelay(3, { ...opts, random: () => 0 })).toBe(0);
  });
});

describe('retry budget', () => {
  it('allows a burst, then only a fraction of requests', () => {
    const budget = createRetryBudget({ ratio: 0.1, maxTokens: 3 });
    let allowed = 0;
    for (let i = 0; i < 100; i++) {
      budget.recordRequest();
      if (budget.tryRetry()) allowed++;
    }
    // 3 burst + 0.1 per request
    expect(allowed).toBeLessThanOrEqual(3 + 10);
    expect(allowed).toBeGreaterThanOrEqual(10);
  });
});

describe('the upstream allowlist', () => {
  it('encodes ids and builds only known query parameters', () => {
    expect(buildRequest('getCard', 'card_1', { include_pan: 'true' }).pathAndQuery).toBe(
      '/card/card_1?include_pan=true',
    );
    expect(buildRequest('listCards', undefined, { 'filter:status': 'active' }).pathAndQuery).toBe(
      '/card?filter%3Astatus=active',
    );
  });
  it('refuses ids that could change the path', () => {
    for (const id of ['../sub-account', 'a/b', 'a?b', '', 'x'.repeat(65), '%2e%2e']) {
      expect(() => buildRequest('getCard', id)).toThrowError(/not valid/);
    }
  });
  it('refuses a query parameter the operation does not have', () => {
    expect(() => buildRequest('getTransaction', 'tx_1', { include_pan: 'true' })).toThrow();
  });
});

describe('upstream messages', () => {
  it('shows a short plain reason', () =>
    expect(safeUpstreamMessage('maximum must be at least minimum')).toBe(
      'maximum must be at least minimum',
    ));
  it('hides markup, control characters and card-like numbers', () => {
    expect(safeUpstreamMessage('<b>boom</b>')).toBeUndefined();
    expect(safeUpstreamMessage('line\nbreak')).toBeUndefined();
    expect(safeUpstreamMessage(`bad card ${'4'.repeat(16)}`)).toBeUndefined();
    expect(safeUpstreamMessage('x'.repeat(400))).toBeUndefined();
  });
  it('masks digit runs for logs', () =>
    expect(maskDigitRuns('pan 4000 0000 0000 0002 end')).toBe('pan [redacted-number] end'));
});
