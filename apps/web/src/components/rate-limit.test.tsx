import { QueryClientProvider, useQuery } from '@tanstack/react-query';
import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { api } from '../lib/api-client';
import { ApiError } from '../lib/api-error';
import { createQueryClient } from '../lib/query-client';
import { apiError, pathOf, requestsTo, serve, server } from '../test/server';
import { ErrorState } from './error-state';
import { RateLimitNotice } from './rate-limit-notice';

const thing = pathOf('alerts.unreadCount');

function Thing() {
  const query = useQuery({
    queryKey: ['thing'],
    queryFn: () => api('alerts.unreadCount'),
  });
  if (query.isError) return <p>gave up</p>;
  return <p>{query.data ? `n=${query.data.unread}` : 'waiting'}</p>;
}

function renderThing() {
  render(
    <QueryClientProvider client={createQueryClient()}>
      <RateLimitNotice />
      <Thing />
    </QueryClientProvider>,
  );
}

/** Fake clock and timers (not the microtask queue, which MSW and React need to run). */
function fakeClock() {
  vi.useFakeTimers({
    toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'],
  });
}

const advance = (ms: number) => act(() => vi.advanceTimersByTimeAsync(ms));
const notice = () => screen.queryByRole('status')?.textContent;

/**
 * The answer shows once it is parsed, and its schemas' chunk loads by real module I/O, not by a
 * timer the fake clock runs: wait for it in real time (a loaded machine takes longer than 10 ms).
 */
const answered = () =>
  vi.waitFor(() => expect(screen.getByText('n=1')).toBeInTheDocument(), { timeout: 5000 });

/** Answers 429 with only a `Retry-After` header (as a proxy in front would), then the data. */
function serveLimitedOnce(retryAfter: string, headers: Record<string, string> = {}) {
  const seenAt: number[] = [];
  server.use(
    serve('alerts.unreadCount', () => {
      seenAt.push(Date.now());
      return seenAt.length === 1
        ? HttpResponse.json(
            {
              type: '/problems/rate_limited',
              title: 'Too many requests',
              status: 429,
              code: 'rate_limited',
              detail: 'Slow down',
              requestId: 'r-1',
            },
            {
              status: 429,
              headers: {
                'Content-Type': 'application/problem+json',
                'Retry-After': retryAfter,
                ...headers,
              },
            },
          )
        : HttpResponse.json({ unread: 1 });
    }),
  );
  return seenAt;
}

describe('429 handling', () => {
  it('with Retry-After: 5, asks again once, after exactly 5 s, counting 5 … 1 and never 0 while waiting', async () => {
    fakeClock();
    const seenAt = serveLimitedOnce('5');
    renderThing();
    await advance(1);
    expect(requestsTo(thing)).toHaveLength(1);
    expect(notice()).toBe('Too many requests — retrying in 5 s');

    for (const shown of [4, 3, 2, 1]) {
      await advance(1000);
      expect(notice()).toBe(`Too many requests — retrying in ${shown} s`);
      // Nothing is sent before the time the server gave (the old backoff asked at 1 s and 3 s).
      expect(requestsTo(thing)).toHaveLength(1);
    }
    await advance(998);
    expect(notice()).toBe('Too many requests — retrying in 1 s');
    expect(requestsTo(thing)).toHaveLength(1);

    await advance(10);
    expect(requestsTo(thing)).toHaveLength(2);
    expect((seenAt[1] ?? 0) - (seenAt[0] ?? 0)).toBe(5000);
    await answered();
    expect(notice()).toBeUndefined();

    await advance(30_000);
    expect(requestsTo(thing)).toHaveLength(2);
  });

  it('honours an HTTP-date Retry-After by the server’s clock, not this machine’s', async () => {
    fakeClock();
    // This machine's clock is ten minutes behind the server's.
    const serverNow = Date.now() + 600_000;
    serveLimitedOnce(new Date(serverNow + 3000).toUTCString(), {
      Date: new Date(serverNow).toUTCString(),
    });
    renderThing();
    await advance(1);
    expect(notice()).toBe('Too many requests — retrying in 3 s');
    await advance(2990);
    expect(requestsTo(thing)).toHaveLength(1);
    await advance(20);
    expect(requestsTo(thing)).toHaveLength(2);
    await answered();
  });

  it('does not sit out an absurd Retry-After: it gives up at once and says until when', async () => {
    fakeClock();
    server.use(
      serve('alerts.unreadCount', () =>
        apiError(429, 'rate_limited', 'Slow down', { retryAfterSeconds: 86_400 }),
      ),
    );
    renderThing();
    await advance(1);
    expect(screen.getByText('gave up')).toBeInTheDocument();
    await advance(120_000);
    expect(requestsTo(thing)).toHaveLength(1);
  });

  it('the error state counts down and retries by itself', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const onRetry = vi.fn();
    const error = new ApiError({
      status: 429,
      code: 'rate_limited',
      detail: 'Slow down',
      requestId: 'r-9',
      retryAfterSeconds: 3,
    });
    render(<ErrorState error={error} onRetry={onRetry} />);
    expect(screen.getByText('Too many requests — retrying in 3 s')).toBeInTheDocument();
    act(() => vi.advanceTimersByTime(1100));
    expect(screen.getByText('Too many requests — retrying in 2 s')).toBeInTheDocument();
    act(() => vi.advanceTimersByTime(1800));
    expect(onRetry).not.toHaveBeenCalled();
    expect(screen.getByText('Too many requests — retrying in 1 s')).toBeInTheDocument();
    act(() => vi.advanceTimersByTime(200));
    expect(onRetry).toHaveBeenCalledTimes(1);
    expect(screen.getByText('r-9')).toBeInTheDocument();
    // And a person can retry at once.
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    expect(onRetry).toHaveBeenCalledTimes(2);
  });

  it('the error state counts from when the refusal came, not from when it is shown', () => {
    fakeClock();
    const error = new ApiError({
      status: 503,
      code: 'upstream_unavailable',
      detail: 'Busy',
      retryAfterSeconds: 10,
    });
    vi.advanceTimersByTime(4000);
    render(<ErrorState error={error} onRetry={vi.fn()} />);
    expect(screen.getByText('Busy — retrying in 6 s')).toBeInTheDocument();
  });

  it('for a wait longer than a minute, the error state says until when and does not retry by itself', () => {
    fakeClock();
    vi.setSystemTime(new Date(2026, 2, 2, 14, 0, 0));
    const onRetry = vi.fn();
    const error = new ApiError({
      status: 429,
      code: 'rate_limited',
      detail: 'Slow down',
      retryAfterSeconds: 3600,
    });
    render(<ErrorState error={error} onRetry={onRetry} />);
    const at = new Date(2026, 2, 2, 15, 0, 0).toLocaleTimeString([], { timeStyle: 'short' });
    expect(screen.getByText(`Too many requests — try again after ${at}`)).toBeInTheDocument();
    act(() => vi.advanceTimersByTime(3_700_000));
    expect(onRetry).not.toHaveBeenCalled();
    expect(screen.getByRole('button', { name: 'Retry' })).toBeInTheDocument();
  });
});
