import { QueryClientProvider, useQuery } from '@tanstack/react-query';
import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { apiJson } from '../lib/api-client';
import { ApiError } from '../lib/api-error';
import { createQueryClient } from '../lib/query-client';
import { apiError, server } from '../test/server';
import { ErrorState } from './error-state';
import { RateLimitNotice } from './rate-limit-notice';

function Thing() {
  const query = useQuery({
    queryKey: ['thing'],
    queryFn: () => apiJson<{ n: number }>('/api/thing'),
  });
  return <p>{query.data ? `n=${query.data.n}` : 'waiting'}</p>;
}

describe('429 handling', () => {
  it('says "Too many requests — retrying in N s" while waiting, then shows the data', async () => {
    let calls = 0;
    server.use(
      http.get('/api/thing', () =>
        ++calls === 1
          ? apiError(429, 'rate_limited', 'Slow down', { retryAfterSeconds: 1 })
          : HttpResponse.json({ n: 1 }),
      ),
    );
    render(
      <QueryClientProvider client={createQueryClient()}>
        <RateLimitNotice />
        <Thing />
      </QueryClientProvider>,
    );
    expect(await screen.findByText(/Too many requests — retrying in 1 s/)).toBeInTheDocument();
    expect(await screen.findByText('n=1', {}, { timeout: 3000 })).toBeInTheDocument();
    expect(screen.queryByText(/Too many requests/)).not.toBeInTheDocument();
  });

  it('the error state counts down and retries by itself', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const onRetry = vi.fn();
    const error = new ApiError({
      status: 429,
      code: 'rate_limited',
      message: 'Slow down',
      requestId: 'r-9',
      retryAfterSeconds: 3,
    });
    render(<ErrorState error={error} onRetry={onRetry} />);
    expect(screen.getByText('Too many requests — retrying in 3 s')).toBeInTheDocument();
    act(() => vi.advanceTimersByTime(1100));
    expect(screen.getByText('Too many requests — retrying in 2 s')).toBeInTheDocument();
    act(() => vi.advanceTimersByTime(2000));
    expect(onRetry).toHaveBeenCalledTimes(1);
    expect(screen.getByText('r-9')).toBeInTheDocument();
    // And a person can retry at once.
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    expect(onRetry).toHaveBeenCalledTimes(2);
  });
});
