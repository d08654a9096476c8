import { describe, expect, it } from 'vitest';
import { ApiError } from './api-error';
import { retryDelay, shouldRetry } from './query-client';

const error = (status: number, retryAfterSeconds?: number) =>
  new ApiError({ status, code: 'x', message: 'x', requestId: 'r', retryAfterSeconds });

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

  it('waits as long as the server asked', () => {
    expect(retryDelay(0, error(429, 7))).toBe(7000);
    expect(retryDelay(0, error(503, 600))).toBe(60_000);
    expect(retryDelay(1, error(429))).toBe(2000);
  });
});
