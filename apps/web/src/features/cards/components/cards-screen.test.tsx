import type { CardPage } from '@card-console/shared/api/cards';
import { cardListQuerySchema } from '@card-console/shared/api/cards';
import type { CardsMoney, IndexCardList } from '@card-console/shared/api/transaction-index';
import { act, screen, waitFor, within } from '@testing-library/react';
import { delay, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { card, financeSession, subAccounts } from '../../../test/fixtures';
import { renderApp } from '../../../test/render-app';
import { apiError, requestsTo, serve, server } from '../../../test/server';

/** Three pages of one card each: p1 → c2 → c3. */
function pagedCards(options: { slowCursor?: string } = {}) {
  server.use(
    serve('cards.list', async ({ request }) => {
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
    serve('cards.get', ({ params }) =>
      HttpResponse.json(card({ id: String(params.id), name: 'Bravo', last4: '1111' })),
    ),
  );
}

describe('cards screen', () => {
  it('shows each card: name, masked number, status, expiry, limits, utilization', async () => {
    server.use(
      serve('cards.list', () =>
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
    expect(within(row).getByText('Active')).toBeInTheDocument();
    expect(within(row).getByText('08/29')).toBeInTheDocument();
    expect(within(row).getByText('min $1.00 · max $500.00')).toBeInTheDocument();
    expect(within(row).getByText(/monthly\s+\$5,000\.00/)).toBeInTheDocument();
    const other = screen.getByRole('row', { name: /No limits/ });
    expect(within(other).getByText('Paused')).toBeInTheDocument();
    expect(within(other).getByText('min none · max none')).toBeInTheDocument();
    expect(within(row).getByRole('link', { name: 'Travel card' })).toHaveAttribute(
      'href',
      '/cards/card_1',
    );
  });

  it("shows each card's sub accounts and its spend of the limit it shows, from the index", async () => {
    const monthly = (limitCents: number, spentCents: number) => ({
      preset: 'monthly',
      limitCents,
      window: { fromDay: '2026-11-01', toDay: '2026-11-30', timeZone: 'America/New_York' },
      spentCents,
    });
    server.use(
      serve('cards.list', () =>
        HttpResponse.json<CardPage>({
          items: [
            card(),
            card({ id: 'c2', name: 'Limit changed since' }),
            card({ id: 'c3', name: 'Never used', utilizationLimit: undefined }),
          ],
        }),
      ),
      serve('subAccounts.list', () => HttpResponse.json({ items: subAccounts })),
      serve('index.cardMoney', () =>
        HttpResponse.json<CardsMoney>({
          cards: [
            {
              cardId: 'card_1',
              subAccountIds: ['sa_ops', 'sa_mkt'],
              utilization: monthly(500_000, 612_345),
            },
            // Measured against a limit the row no longer shows: no bar, never two truths.
            { cardId: 'c2', subAccountIds: ['sa_ops'], utilization: monthly(300_000, 1_000) },
            { cardId: 'c3', subAccountIds: [] },
          ],
          freshness: { syncing: false, days: 0, daysDone: 0, updatedAt: Date.now() },
        }),
      ),
    );
    renderApp('/cards', { session: financeSession() });
    const row = await screen.findByRole('row', { name: /Travel card/ });
    expect(await within(row).findByText('Operations, Marketing')).toBeInTheDocument();
    const meter = within(row).getByRole('meter', { name: 'Spent $6,123.45 of $5,000.00' });
    expect(meter).toHaveAttribute('value', '500000');
    expect(within(row).getByText('$6,123.45 spent (over)')).toBeInTheDocument();
    const changed = screen.getByRole('row', { name: /Limit changed since/ });
    expect(within(changed).getByText('Operations')).toBeInTheDocument();
    expect(within(changed).queryByRole('meter')).toBeNull();
    const unused = screen.getByRole('row', { name: /Never used/ });
    expect(within(unused).getByText('No transactions')).toBeInTheDocument();
    // One read for the page's cards, naming each.
    const asked = requestsTo('/api/index/card-money').map((r) =>
      new URL(r.url).searchParams.getAll('cardId'),
    );
    expect(asked).toEqual([['card_1', 'c2', 'c3']]);
  });

  it('a sub account shows the cards that spend from it, from the index, with the same filters', async () => {
    server.use(
      serve('cards.list', () => HttpResponse.json<CardPage>({ items: [card()] })),
      serve('subAccounts.list', () => HttpResponse.json({ items: subAccounts })),
      serve('index.cards', () =>
        HttpResponse.json<IndexCardList>({
          items: [card({ id: 'c_ops', name: 'Ops travel' })],
          freshness: { syncing: false, days: 0, daysDone: 0, updatedAt: Date.now() },
        }),
      ),
    );
    const { router, user } = renderApp('/cards?status=active', { session: financeSession() });
    await screen.findByRole('row', { name: /Travel card/ });
    await screen.findByRole('option', { name: 'Operations' });
    await user.selectOptions(screen.getByLabelText('Sub account'), 'Operations');
    expect(await screen.findByRole('row', { name: /Ops travel/ })).toBeInTheDocument();
    expect(screen.queryByRole('row', { name: /Travel card/ })).toBeNull();
    expect(router.state.location.search).toMatchObject({
      subAccountId: 'sa_ops',
      status: 'active',
    });
    const asked = requestsTo('/api/index/cards').map((r) =>
      Object.fromEntries(new URL(r.url).searchParams),
    );
    expect(asked).toEqual([{ subAccountId: 'sa_ops', status: 'active' }]);
    expect(screen.getByText(/cards with a transaction in this sub account/)).toBeInTheDocument();
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

  it('"Load more" appends the next page, in the URL, and Back from a card shows the same cards', async () => {
    pagedCards();
    const { user, router, history } = renderApp('/cards?status=active', {
      session: financeSession(),
    });
    await screen.findByRole('row', { name: /Alpha/ });
    expect(screen.getByTestId('loaded-count')).toHaveTextContent('Showing 1, more available');
    const entries = history.length;
    await user.click(screen.getByRole('button', { name: 'Load more' }));
    await screen.findByRole('row', { name: /Bravo/ });
    expect(screen.getByRole('row', { name: /Alpha/ })).toBeInTheDocument();
    expect(router.state.location.search).toEqual({ status: 'active', pages: '2' });
    expect(history.length).toBe(entries);
    await user.click(screen.getByRole('button', { name: 'Load more' }));
    await screen.findByRole('row', { name: /Charlie/ });
    expect(screen.getByTestId('loaded-count')).toHaveTextContent('Showing 1–3, end of list');
    expect(screen.queryByRole('button', { name: 'Load more' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /page/i })).not.toBeInTheDocument();

    // To a card and back (the browser's Back, then Forward and Back again): the same three.
    await user.click(screen.getByRole('link', { name: 'Bravo' }));
    await screen.findByRole('heading', { name: /Bravo/ });
    act(() => history.back());
    await screen.findByRole('row', { name: /Charlie/ });
    expect(screen.getAllByRole('row')).toHaveLength(4);
    act(() => history.forward());
    await screen.findByRole('heading', { name: /Bravo/ });
    act(() => history.back());
    await screen.findByRole('row', { name: /Charlie/ });
    expect(router.state.location.search).toEqual({ status: 'active', pages: '3' });
    expect(requestsTo('/api/cards').map((r) => new URL(r.url).searchParams.get('cursor'))).toEqual([
      null,
      'c2',
      'c3',
    ]);
  });

  it('keeps the cards on screen while the next page loads', async () => {
    pagedCards({ slowCursor: 'c2' });
    const { user } = renderApp('/cards', { session: financeSession() });
    await screen.findByRole('row', { name: /Alpha/ });
    await user.click(screen.getByRole('button', { name: 'Load more' }));
    await delay(250);
    expect(screen.getByRole('row', { name: /Alpha/ })).toBeInTheDocument();
    expect(screen.getByText(/Loading more…/)).toBeInTheDocument();
    expect(screen.getByRole('region', { name: 'Cards table' })).toHaveAttribute(
      'aria-busy',
      'true',
    );
    expect(await screen.findByRole('row', { name: /Bravo/ })).toBeInTheDocument();
  });

  it('when the next page fails, shows the error under the cards and Retry loads it', async () => {
    let failNext = true;
    pagedCards();
    server.use(
      serve('cards.list', ({ request }) => {
        const cursor = new URL(request.url).searchParams.get('cursor');
        if (cursor === 'c2' && failNext) {
          return apiError(502, 'upstream_unavailable', 'The card service did not answer.');
        }
        return undefined;
      }),
    );
    const { user, router } = renderApp('/cards', { session: financeSession() });
    await screen.findByRole('row', { name: /Alpha/ });
    await user.click(screen.getByRole('button', { name: 'Load more' }));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('The card service did not answer.');
    expect(alert).toHaveTextContent('req-upstream_unavailable');
    expect(screen.getByRole('row', { name: /Alpha/ })).toBeInTheDocument();
    expect(router.state.location.search).toEqual({});
    failNext = false;
    await user.click(within(alert).getByRole('button', { name: 'Retry' }));
    expect(await screen.findByRole('row', { name: /Bravo/ })).toBeInTheDocument();
    expect(router.state.location.search).toEqual({ pages: '2' });
  });

  it('a link with pages reproduces the cards shown, reading each page once', async () => {
    pagedCards();
    renderApp('/cards?pages=3', { session: financeSession() });
    expect(await screen.findByRole('row', { name: /Charlie/ })).toBeInTheDocument();
    expect(screen.getByRole('row', { name: /Alpha/ })).toBeInTheDocument();
    expect(screen.getByTestId('loaded-count')).toHaveTextContent('Showing 1–3, end of list');
    expect(requestsTo('/api/cards')).toHaveLength(3);
  });

  it("corrects a link's values it cannot use and says which it left out", async () => {
    pagedCards();
    const { router } = renderApp('/cards?status=bogus&sort=name&direction=sideways', {
      session: financeSession(),
    });
    const notice = await screen.findByText(/The link's status “bogus”/);
    expect(notice.closest('[role="status"]')).toHaveTextContent(
      "The link's status “bogus” isn't a card status; showing all statuses." +
        "The link's direction “sideways” isn't asc or desc; showing descending.",
    );
    await waitFor(() => expect(router.state.location.search).toEqual({ sort: 'name' }));
    expect(
      Object.fromEntries(new URL(requestsTo('/api/cards').at(-1)?.url ?? '').searchParams),
    ).toEqual({ sort: 'name' });
  });

  it('a long name is whole in its cell, wrapping there (never cut, never widening the table)', async () => {
    const long = 'N'.repeat(100);
    server.use(
      serve('cards.list', () => HttpResponse.json<CardPage>({ items: [card({ name: long })] })),
    );
    renderApp('/cards', { session: financeSession() });
    const link = await screen.findByRole('link', { name: long });
    expect(link).toHaveTextContent(long);
    expect(link.closest('th')).toHaveClass('long-text');
  });

  it('says when no card matches', async () => {
    server.use(serve('cards.list', () => HttpResponse.json<CardPage>({ items: [] })));
    renderApp('/cards?status=closed', { session: financeSession() });
    expect(await screen.findByText('No cards match these filters.')).toBeInTheDocument();
  });

  it('on 429 says it is retrying and when', async () => {
    server.use(
      serve('cards.list', () =>
        apiError(429, 'rate_limited', 'Slow down', { retryAfterSeconds: 7 }),
      ),
    );
    renderApp('/cards', { session: financeSession() });
    expect(await screen.findByText(/Too many requests — retrying in \d+ s/)).toBeInTheDocument();
    expect(screen.getByText(/retrying in (7|6) s/)).toBeInTheDocument();
  });
});
