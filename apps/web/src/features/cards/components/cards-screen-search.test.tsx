import type { Card, CardPage } from '@card-console/shared/api/cards';
import { cardListQuerySchema } from '@card-console/shared/api/cards';
import { act, screen, waitFor, within } from '@testing-library/react';
import { HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { card, financeSession, quietOverview, subAccounts } from '../../../test/fixtures';
import { renderApp } from '../../../test/render-app';
import { requestsTo, serve, server } from '../../../test/server';

const CARDS: Card[] = [
  card({ id: 'c_travel', name: 'Travel card', last4: '6707' }),
  card({ id: 'c_soft', name: 'Software (Ada)', last4: '1234' }),
  card({ id: 'c_events', name: 'Events', last4: '9876', status: 'paused' }),
];

/** A cards list that searches as the BFF does: part of the name in any case, or of the last four. */
function searchableCards() {
  server.use(
    serve('cards.list', ({ request }) => {
      const query = cardListQuerySchema.parse(
        Object.fromEntries(new URL(request.url).searchParams),
      );
      const q = query.q?.toLowerCase();
      const items = CARDS.filter(
        (c) => q === undefined || c.name.toLowerCase().includes(q) || c.last4.includes(q),
      ).filter((c) => query.status === undefined || c.status === query.status);
      return HttpResponse.json<CardPage>({ items });
    }),
  );
}

/** The `q` of each cards list request, in order (none: the unsearched list). */
const searchesAsked = () =>
  requestsTo('/api/cards').map((r) => new URL(r.url).searchParams.get('q'));

describe('searching the cards', () => {
  it('from the landing page: Cards, then the last four typed in "Search cards" shows that card', async () => {
    searchableCards();
    server.use(
      serve('overview.get', () => HttpResponse.json(quietOverview())),
      serve('subAccounts.list', () => HttpResponse.json({ items: subAccounts })),
    );
    const { user, router } = renderApp('/', { session: financeSession() });
    await user.click(await screen.findByRole('link', { name: 'Cards' }));
    const field = await screen.findByRole('searchbox', { name: 'Search cards' });
    expect(field).toHaveAttribute('placeholder', 'Name or last four');
    await screen.findByRole('row', { name: /Software/ });
    await user.type(field, '6707');
    // The list follows the typing after a pause: one read for the four digits, not one a key.
    expect(await screen.findByRole('row', { name: /Travel card/ })).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole('row', { name: /Software/ })).toBeNull());
    expect(searchesAsked()).toEqual([null, '6707']);
    expect(router.state.location).toMatchObject({ pathname: '/cards', search: { q: '6707' } });
  });

  it('finds by part of a name in any case, with the status filter kept, and Enter applies at once', async () => {
    searchableCards();
    const { user, router } = renderApp('/cards?status=active', { session: financeSession() });
    await screen.findByRole('row', { name: /Travel card/ });
    const field = screen.getByRole('searchbox', { name: 'Search cards' });
    await user.type(field, 'SOFT{Enter}');
    expect(await screen.findByRole('row', { name: /Software \(Ada\)/ })).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole('row', { name: /Travel card/ })).toBeNull());
    expect(router.state.location.search).toEqual({ status: 'active', q: 'SOFT' });
    const last = requestsTo('/api/cards').at(-1);
    expect(Object.fromEntries(new URL(last?.url ?? '').searchParams)).toEqual({
      q: 'SOFT',
      status: 'active',
    });
  });

  it('says plainly when no card matches, and clearing the search shows every card again', async () => {
    searchableCards();
    const { user, router } = renderApp('/cards', { session: financeSession() });
    await screen.findByRole('row', { name: /Travel card/ });
    const field = screen.getByRole('searchbox', { name: 'Search cards' });
    await user.type(field, '0000');
    expect(
      await screen.findByText("No card's name or last four matches “0000”."),
    ).toBeInTheDocument();
    await user.clear(field);
    expect(await screen.findByRole('row', { name: /Events/ })).toBeInTheDocument();
    await waitFor(() => expect(router.state.location.search).toEqual({}));
  });

  it('a link with a search opens the list searched, the field holding it; Back and Forward follow', async () => {
    searchableCards();
    const { user, history } = renderApp('/cards?q=events', { session: financeSession() });
    expect(await screen.findByRole('row', { name: /Events/ })).toBeInTheDocument();
    expect(screen.queryByRole('row', { name: /Travel card/ })).toBeNull();
    const field = screen.getByRole('searchbox', { name: 'Search cards' });
    expect(field).toHaveValue('events');
    expect(searchesAsked()).toEqual(['events']);
    // A sort is a step of its own; the search stays with it.
    await user.selectOptions(screen.getByLabelText('Sort by'), 'name');
    await waitFor(() =>
      expect(
        Object.fromEntries(new URL(requestsTo('/api/cards').at(-1)?.url ?? '').searchParams),
      ).toEqual({
        q: 'events',
        sort: 'name',
      }),
    );
    await user.clear(field);
    await screen.findByRole('row', { name: /Travel card/ });
    expect(field).toHaveValue('');
    act(() => history.back());
    await waitFor(() => expect(field).toHaveValue('events'));
  });

  it("says a link's search longer than any name was left out", async () => {
    searchableCards();
    const { router } = renderApp(`/cards?q=${'x'.repeat(101)}`, { session: financeSession() });
    expect(
      await screen.findByText(/The link's search “x+…” is longer than a card's name can be/),
    ).toBeInTheDocument();
    await waitFor(() => expect(router.state.location.search).toEqual({}));
    expect(searchesAsked().every((q) => q === null)).toBe(true);
  });
});

describe('sorting the cards by money', () => {
  it('sorts by spend and by utilization, either way, sending the sort and saying what spend is', async () => {
    searchableCards();
    const { user, router } = renderApp('/cards', { session: financeSession() });
    await screen.findByRole('row', { name: /Travel card/ });
    const sort = screen.getByLabelText('Sort by');
    expect(
      within(sort)
        .getAllByRole('option')
        .map((o) => o.textContent),
    ).toEqual(['Created date', 'Name', 'Spend', 'Utilization']);
    await user.selectOptions(sort, 'spend');
    await waitFor(() => expect(router.state.location.search).toEqual({ sort: 'spend' }));
    expect(
      screen.getByText(/Spend is within the current period of each card's utilization limit/),
    ).toBeInTheDocument();
    await user.selectOptions(screen.getByLabelText('Direction'), 'asc');
    await user.selectOptions(sort, 'utilization');
    await waitFor(() =>
      expect(router.state.location.search).toEqual({ sort: 'utilization', direction: 'asc' }),
    );
    const asked = requestsTo('/api/cards').map((r) =>
      Object.fromEntries(new URL(r.url).searchParams),
    );
    expect(asked).toEqual([
      {},
      { sort: 'spend' },
      { sort: 'spend', direction: 'asc' },
      { sort: 'utilization', direction: 'asc' },
    ]);
  });

  it('a sub account whose name its field cuts is written out whole below it', async () => {
    searchableCards();
    const long = {
      ...(subAccounts[0] as (typeof subAccounts)[number]),
      id: 'sa_long',
      name: 'Procurement, Facilities and Workplace Services — North America East',
    };
    server.use(
      serve('subAccounts.list', () => HttpResponse.json({ items: [...subAccounts, long] })),
      serve('index.cards', () =>
        HttpResponse.json({
          items: [CARDS[0]],
          freshness: { syncing: false, days: 0, daysDone: 0, updatedAt: Date.now() },
        }),
      ),
    );
    const { user } = renderApp('/cards', { session: financeSession() });
    const field = await screen.findByLabelText('Sub account');
    await screen.findByRole('option', { name: long.name });
    expect(field).not.toHaveAccessibleDescription();
    await user.selectOptions(field, long.name);
    await waitFor(() =>
      expect(screen.getByLabelText('Sub account')).toHaveAccessibleDescription(long.name),
    );
    expect(screen.getByText(long.name, { selector: 'small' })).toBeVisible();
  });

  it("a sub account's cards are searched and sorted by spend through the index, with the same values", async () => {
    searchableCards();
    server.use(
      serve('subAccounts.list', () => HttpResponse.json({ items: subAccounts })),
      serve('index.cards', () =>
        HttpResponse.json({
          items: [CARDS[0]],
          freshness: { syncing: false, days: 0, daysDone: 0, updatedAt: Date.now() },
        }),
      ),
    );
    renderApp('/cards?subAccountId=sa_ops&q=6707&sort=spend', { session: financeSession() });
    expect(await screen.findByRole('row', { name: /Travel card/ })).toBeInTheDocument();
    const asked = requestsTo('/api/index/cards').map((r) =>
      Object.fromEntries(new URL(r.url).searchParams),
    );
    expect(asked).toEqual([{ subAccountId: 'sa_ops', q: '6707', sort: 'spend' }]);
  });
});
