import type { CardPage } from '@card-console/shared/api/cards';
import { cardListQuerySchema } from '@card-console/shared/api/cards';
import { act, screen, within } from '@testing-library/react';
import { delay, HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { card, financeSession } from '../../../test/fixtures';
import { renderApp } from '../../../test/render-app';
import { apiError, requestsTo, server } from '../../../test/server';

/** Three pages of one card each: p1 → c2 → c3. */
function pagedCards(options: { slowCursor?: string } = {}) {
  server.use(
    http.get('/api/cards', async ({ request }) => {
      const query = cardListQuerySchema.parse(
        Object.fromEntries(new URL(request.url).searchParams),
      );
      if (query.cursor && query.cursor === options.slowCursor) await delay(400);
      const pages: Record<string, CardPage> = {
        first: { items: [card({ id: 'c1', name: 'Alpha' })], nextCursor: 'c2' },
        c2: { items: [card({ id: 'c2', name: 'Bravo', last4: '1111' })], nextCursor: 'c3' },
        c3: { items: [card({ id: 'c3', name: 'Charlie', last4: '2222' })] },
      };
      return HttpResponse.json(pages[query.cursor ?? 'first']);
    }),
  );
}

describe('cards screen', () => {
  it('shows each card: name, masked number, status, expiry, limits, utilization', async () => {
    server.use(
      http.get('/api/cards', () =>
        HttpResponse.json<CardPage>({
          items: [
            card(),
            card({
              id: 'c2',
              name: 'No limits',
              status: 'paused',
              utilizationLimit: undefined,
              transactionSizeLimit: {},
            }),
          ],
        }),
      ),
    );
    renderApp('/cards', { session: financeSession() });
    const row = await screen.findByRole('row', { name: /Travel card/ });
    expect(within(row).getByText('•••• 4242')).toBeInTheDocument();
    expect(within(row).getByText('active')).toBeInTheDocument();
    expect(within(row).getByText('08/29')).toBeInTheDocument();
    expect(within(row).getByText('min $1.00 · max $500.00')).toBeInTheDocument();
    expect(within(row).getByText(/monthly\s+\$5,000\.00/)).toBeInTheDocument();
    const other = screen.getByRole('row', { name: /No limits/ });
    expect(within(other).getByText('paused')).toBeInTheDocument();
    expect(within(other).getByText('min none · max none')).toBeInTheDocument();
    expect(within(row).getByRole('link', { name: 'Travel card' })).toHaveAttribute(
      'href',
      '/cards/card_1',
    );
  });

  it('puts status, sort and direction in the URL and sends them', async () => {
    pagedCards();
    const { user, router } = renderApp('/cards', { session: financeSession() });
    await screen.findByRole('row', { name: /Alpha/ });
    await user.selectOptions(screen.getByLabelText('Status'), 'paused');
    await user.selectOptions(screen.getByLabelText('Sort by'), 'name');
    await user.selectOptions(screen.getByLabelText('Direction'), 'asc');
    await screen.findByRole('row', { name: /Alpha/ });
    expect(router.state.location.search).toEqual({
      status: 'paused',
      sort: 'name',
      direction: 'asc',
    });
    const last = requestsTo('/api/cards').at(-1);
    expect(Object.fromEntries(new URL(last?.url ?? '').searchParams)).toEqual({
      status: 'paused',
      sort: 'name',
      direction: 'asc',
    });
  });

  it('pages forward with the cursor and Back returns to the previous page', async () => {
    pagedCards();
    const { user, history } = renderApp('/cards', { session: financeSession() });
    await screen.findByRole('row', { name: /Alpha/ });
    expect(screen.getByRole('button', { name: 'Previous page' })).toBeDisabled();
    await user.click(screen.getByRole('button', { name: 'Next page' }));
    await screen.findByRole('row', { name: /Bravo/ });
    await user.click(screen.getByRole('button', { name: 'Next page' }));
    await screen.findByRole('row', { name: /Charlie/ });
    expect(screen.getByText('Page 3')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Next page' })).toBeDisabled();

    // The browser's Back and Forward buttons…
    act(() => history.back());
    expect(await screen.findByRole('row', { name: /Bravo/ })).toBeInTheDocument();
    act(() => history.forward());
    expect(await screen.findByRole('row', { name: /Charlie/ })).toBeInTheDocument();
    act(() => history.back());
    expect(await screen.findByRole('row', { name: /Bravo/ })).toBeInTheDocument();
    // …and the Previous button all return a page.
    await user.click(screen.getByRole('button', { name: 'Previous page' }));
    expect(await screen.findByRole('row', { name: /Alpha/ })).toBeInTheDocument();
    expect(screen.getByText('Page 1')).toBeInTheDocument();
  });

  it('keeps the current page on screen while the next one loads', async () => {
    pagedCards({ slowCursor: 'c2' });
    const { user } = renderApp('/cards', { session: financeSession() });
    await screen.findByRole('row', { name: /Alpha/ });
    await user.click(screen.getByRole('button', { name: 'Next page' }));
    await delay(250);
    expect(screen.getByRole('row', { name: /Alpha/ })).toBeInTheDocument();
    expect(screen.getByText(/Loading…/)).toBeInTheDocument();
    expect(await screen.findByRole('row', { name: /Bravo/ })).toBeInTheDocument();
  });

  it('when the next page fails, shows the error and Retry loads it', async () => {
    let failNext = true;
    pagedCards();
    server.use(
      http.get('/api/cards', ({ request }) => {
        const cursor = new URL(request.url).searchParams.get('cursor');
        if (cursor === 'c2' && failNext) {
          return apiError(503, 'upstream_unavailable', 'The card service is busy.', {
            retryAfterSeconds: 30,
          });
        }
        return undefined;
      }),
    );
    const { user } = renderApp('/cards', { session: financeSession() });
    await screen.findByRole('row', { name: /Alpha/ });
    await user.click(screen.getByRole('button', { name: 'Next page' }));
    expect(
      await screen.findByText(/The card service is busy\. — retrying in \d+ s/),
    ).toBeInTheDocument();
    expect(screen.getByText('req-upstream_unavailable')).toBeInTheDocument();
    failNext = false;
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByRole('row', { name: /Bravo/ })).toBeInTheDocument();
  });

  it('a link with cursors reproduces the page', async () => {
    pagedCards();
    renderApp('/cards?cursors=%5B%22c2%22%2C%22c3%22%5D', { session: financeSession() });
    expect(await screen.findByRole('row', { name: /Charlie/ })).toBeInTheDocument();
    expect(screen.getByText('Page 3')).toBeInTheDocument();
  });

  it('says when no card matches', async () => {
    server.use(http.get('/api/cards', () => HttpResponse.json<CardPage>({ items: [] })));
    renderApp('/cards?status=closed', { session: financeSession() });
    expect(await screen.findByText('No cards match these filters.')).toBeInTheDocument();
  });

  it('on 429 says it is retrying and when', async () => {
    server.use(
      http.get('/api/cards', () =>
        apiError(429, 'rate_limited', 'Slow down', { retryAfterSeconds: 7 }),
      ),
    );
    renderApp('/cards', { session: financeSession() });
    expect(await screen.findByText(/Too many requests — retrying in \d+ s/)).toBeInTheDocument();
    expect(screen.getByText(/retrying in (7|6) s/)).toBeInTheDocument();
  });
});
