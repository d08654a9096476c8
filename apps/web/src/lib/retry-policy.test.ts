import { describe, expect, it } from 'vitest';
import { ApiError } from './api-error';
import { MAX_AUTO_RETRY_SECONDS, retryAt, retryDelay, shouldRetry } from './retry-policy';

const error = (status: number, retryAfterSeconds?: number) =>
  new ApiError({ status, code: 'rate_limited', detail: 'x', requestId: 'r', retryAfterSeconds });

describe('query retry policy', () => {
  it('retries only 429 and 503, at most twice', () => {
    expect(shouldRetry(0, error(429))).toBe(true);
    expect(shouldRetry(1, error(503))).toBe(true);
    expect(shouldRetry(2, error(429))).toBe(false);
    for (const status of [400, 401, 403, 404, 500, 502]) {
      expect(shouldRetry(0, error(status))).toBe(false);
    }
    expect(shouldRetry(0, new Error('boom'))).toBe(false);
  });

  it('waits exactly as long as the server asked, and backs off when it did not say', () => {
    expect(retryDelay(0, error(429, 7))).toBe(7000);
    expect(retryDelay(1, error(429, 0))).toBe(0);
    expect(retryDelay(0, error(429))).toBe(1000);
    expect(retryDelay(1, error(429))).toBe(2000);
  });

  it('does not sit out a wait longer than a minute: that error shows instead', () => {
    expect(shouldRetry(0, error(429, MAX_AUTO_RETRY_SECONDS))).toBe(true);
    expect(shouldRetry(0, error(429, MAX_AUTO_RETRY_SECONDS + 1))).toBe(false);
    expect(shouldRetry(0, error(503, 86_400))).toBe(false);
  });

  it('counts the retry time from when the refusal arrived', () => {
    const refused = error(429, 5);
    expect(retryAt(refused, 1)).toBe(refused.receivedAt + 5000);
    const unsaid = error(503);
    expect(retryAt(unsaid, 1)).toBe(unsaid.receivedAt + 1000);
    expect(retryAt(unsaid, 2)).toBe(unsaid.receivedAt + 2000);
  });
});
