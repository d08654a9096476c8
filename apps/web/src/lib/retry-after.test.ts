import { describe, expect, it } from 'vitest';
import { retryAfterSeconds } from './retry-after';

const headers = (init: Record<string, string>) => new Headers(init);
const NOW = Date.parse('2026-03-02T10:00:00Z');

describe('Retry-After', () => {
  it('reads delta-seconds', () => {
    expect(retryAfterSeconds(headers({ 'Retry-After': '5' }), NOW)).toBe(5);
    expect(retryAfterSeconds(headers({ 'Retry-After': ' 0 ' }), NOW)).toBe(0);
  });

  it('reads an HTTP date, counted from the answer’s own Date header when there is one', () => {
    const at = 'Mon, 02 Mar 2026 10:00:05 GMT';
    expect(retryAfterSeconds(headers({ 'Retry-After': at }), NOW)).toBe(5);
    // This machine's clock is an hour slow: the server's Date still gives the 5 s it meant.
    const skewed = headers({ 'Retry-After': at, Date: 'Mon, 02 Mar 2026 10:00:00 GMT' });
    expect(retryAfterSeconds(skewed, NOW - 3_600_000)).toBe(5);
    // A date already past means "now".
    expect(retryAfterSeconds(headers({ 'Retry-After': at }), NOW + 60_000)).toBe(0);
  });

  it('ignores what it cannot read', () => {
    for (const value of ['soon', '-3', '1.5', '']) {
      expect(retryAfterSeconds(headers({ 'Retry-After': value }), NOW)).toBeUndefined();
    }
    expect(retryAfterSeconds(headers({}), NOW)).toBeUndefined();
  });
});
