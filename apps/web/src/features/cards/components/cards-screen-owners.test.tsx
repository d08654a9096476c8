import { ownershipKeyOf } from '@card-console/shared/api/card-owners';
import { type CardPage, cardListQuerySchema } from '@card-console/shared/api/cards';
import type { IndexCardList } from '@card-console/shared/api/transaction-index';
import { statusesOf } from '@card-console/shared/money-definition';
import { screen, waitFor, within } from '@testing-library/react';
import { HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { card, financeSession, subAccounts } from '../../../test/fixtures';
import { renderApp } from '../../../test/render-app';
import { serveCardOwners } from '../../../test/serve-card-owners';
import { noTotals, requestsTo, serve, server } from '../../../test/server';

const cards = [
  card({
    id: 'c1',
    name: 'Elena travel',
    owner: { name: 'Elena Walsh', email: 'elena@example.test', person: true },
    team: 'Sales',
  }),
  card({ id: 'c2', name: 'Sam fuel', owner: { name: 'Sam Lee' }, team: 'Field ops' }),
  card({ id: 'c3', name: 'Spare card' }),
];

/** The cards list as the BFF answers it: its query checked, owner and team matched in any case. */
function serveCards() {
  serveCardOwners(cards);
  server.use(
    serve('cards.list', ({ request }) => {
      const q = cardListQuerySchema.parse(Object.fromEntries(new URL(request.url).searchParams));
      const same = (name: string | undefined, asked: string | undefined) =>
        asked === undefined ||
        (name !== undefined && ownershipKeyOf(name) === ownershipKeyOf(asked));
      return HttpResponse.json<CardPage>({
        items: cards.filter((c) => same(c.owner?.name, q.owner) && same(c.team, q.team)),
      });
    }),
  );
}

const lastListQuery = () =>
  Object.fromEntries(new URL(requestsTo('/api/cards').at(-1)?.url ?? 'http://x/').searchParams);

describe('cards screen: owners and teams', () => {
  it("shows each card's owner and team, a dash for none, each cell labelled for a phone", async () => {
    serveCards();
    renderApp('/cards', { session: financeSession() });
    const row = await screen.findByRole('row', { name: /Elena travel/ });
    expect(within(row).getByText('Elena Walsh').closest('td')).toHaveAttribute(
      'data-label',
      'Owner',
    );
    expect(within(row).getByText('Sales').closest('td')).toHaveAttribute('data-label', 'Team');
    const spare = screen.getByRole('row', { name: /Spare card/ });
    for (const label of ['Owner', 'Team']) {
      expect(spare.querySelector(`td[data-label="${label}"]`)).toHaveTextContent('—');
    }
    expect(screen.getByRole('columnheader', { name: 'Owner' })).toBeInTheDocument();
    expect(screen.getByRole('columnheader', { name: 'Team' })).toBeInTheDocument();
  });

  it("narrowed to an owner, says what their cards spent this month (the index's totals) in the rows that make it up, and opens those rows by card", async () => {
    serveCards();
    const totals = noTotals();
    // 7 rows of card spend; 2 declines and a released hold are rows of theirs, not of spend.
    totals.summary.count = 10;
    totals.summary.buckets.card = { count: 6, cents: -123_456, pendingCount: 0, pendingCents: 0 };
    totals.summary.buckets.refund = { count: 1, cents: 1_000, pendingCount: 0, pendingCents: 0 };
    totals.summary.buckets.attempted = {
      count: 2,
      cents: -5_000,
      pendingCount: 0,
      pendingCents: 0,
    };
    totals.summary.buckets.released = { count: 1, cents: -700, pendingCount: 0, pendingCents: 0 };
    server.use(
      serve('index.totals', () => HttpResponse.json(totals)),
      serve('index.transactions', () =>
        HttpResponse.json({ items: [], freshness: { syncing: false, days: 0, daysDone: 0 } }),
      ),
    );
    const { user, router } = renderApp('/cards?owner=elena%20walsh', {
      session: financeSession(),
    });
    // Named as the cards show the owner, whatever the link's spelling.
    const line = await screen.findByText(/Card spend this month \(Elena Walsh\):/);
    await waitFor(() => expect(line).toHaveTextContent('$1,224.56 in 7 transactions.'));
    const asked = Object.fromEntries(
      new URL(requestsTo('/api/index/transactions/totals').at(-1)?.url ?? 'http://x/').searchParams,
    );
    expect(asked).toMatchObject({ owner: 'elena walsh' });
    // This month, from its first day (in the person's zone) to today.
    expect(new Date(Number(asked.from)).getDate()).toBe(1);
    expect(Number(asked.to)).toBeGreaterThan(Date.now() - 1_000);
    await user.click(screen.getByRole('link', { name: 'Those transactions, by card' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/transactions'));
    // The rows of card spend: money that moved or will (docs/money.md), as the count.
    expect(router.state.location.search).toEqual({
      period: 'this-month',
      owner: 'elena walsh',
      status: statusesOf(['posted', 'pending']),
      by: 'card',
    });
  });

  it('says "Unavailable", never "—", when the owners could not be read', async () => {
    serveCardOwners(cards);
    server.use(
      serve('cards.list', () =>
        HttpResponse.json<CardPage>({
          items: [card({ id: 'c9', name: 'Unread owner', ownershipUnavailable: true })],
        }),
      ),
    );
    renderApp('/cards', { session: financeSession() });
    const row = await screen.findByRole('row', { name: /Unread owner/ });
    for (const label of ['Owner', 'Team']) {
      expect(row.querySelector(`td[data-label="${label}"]`)).toHaveTextContent('Unavailable');
    }
  });

  it('filters by an owner and by a team given, in the URL and the request', async () => {
    serveCards();
    const { user, router } = renderApp('/cards', { session: financeSession() });
    await screen.findByRole('row', { name: /Spare card/ });
    const owner = screen.getByLabelText('Owner');
    await within(owner).findByRole('option', { name: 'Sam Lee' });
    expect(
      within(owner)
        .getAllByRole('option')
        .map((o) => o.textContent),
    ).toEqual(['All owners', 'Elena Walsh', 'Sam Lee']);
    await user.selectOptions(owner, 'Sam Lee');
    await waitFor(() => expect(screen.queryByRole('row', { name: /Elena travel/ })).toBeNull());
    expect(screen.getByRole('row', { name: /Sam fuel/ })).toBeInTheDocument();
    expect(router.state.location.search).toEqual({ owner: 'Sam Lee' });
    expect(lastListQuery()).toEqual({ owner: 'Sam Lee' });

    await user.selectOptions(screen.getByLabelText('Owner'), '');
    await user.selectOptions(screen.getByLabelText('Team'), 'Sales');
    await waitFor(() => expect(router.state.location.search).toEqual({ team: 'Sales' }));
    expect(await screen.findByRole('row', { name: /Elena travel/ })).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole('row', { name: /Sam fuel/ })).toBeNull());
    expect(lastListQuery()).toEqual({ team: 'Sales' });
  });

  it("a link's owner the directory spells otherwise is its owner; a team it does not hold still shows", async () => {
    serveCards();
    const { unmount } = renderApp('/cards?owner=elena%20walsh', { session: financeSession() });
    await screen.findByRole('row', { name: /Elena travel/ });
    await waitFor(() => expect(screen.getByLabelText('Owner')).toHaveDisplayValue('Elena Walsh'));
    expect(lastListQuery()).toEqual({ owner: 'elena walsh' });
    unmount();

    renderApp('/cards?team=Night%20shift', { session: financeSession() });
    expect(await screen.findByText('No cards match these filters.')).toBeInTheDocument();
    await screen.findByRole('option', { name: 'Field ops' });
    expect(screen.getByLabelText('Team')).toHaveDisplayValue('Night shift');
  });

  it("a link's owner longer than a name can be is left out, and the screen says so", async () => {
    serveCards();
    const { router } = renderApp(`/cards?owner=${'x'.repeat(101)}`, { session: financeSession() });
    expect(
      await screen.findByText(/The link's owner “x+…” is blank or longer/),
    ).toBeInTheDocument();
    expect(router.state.location.search).toEqual({});
    expect(lastListQuery()).toEqual({});
  });

  it("a sub account's cards are asked for with the owner or team chosen, and shown as the BFF answers", async () => {
    serveCards();
    server.use(
      serve('subAccounts.list', () => HttpResponse.json({ items: subAccounts })),
      serve('index.cards', ({ request }) => {
        const team = new URL(request.url).searchParams.get('team');
        return HttpResponse.json<IndexCardList>({
          items: cards.filter((c) => team === null || c.team?.toLowerCase() === team.toLowerCase()),
          freshness: { syncing: false, days: 0, daysDone: 0, updatedAt: Date.now() },
        });
      }),
    );
    renderApp('/cards?subAccountId=sa_ops&team=field%20OPS', { session: financeSession() });
    expect(await screen.findByRole('row', { name: /Sam fuel/ })).toBeInTheDocument();
    expect(screen.queryByRole('row', { name: /Elena travel/ })).toBeNull();
    const asked = requestsTo('/api/index/cards').map((r) =>
      Object.fromEntries(new URL(r.url).searchParams),
    );
    expect(asked).toEqual([{ subAccountId: 'sa_ops', team: 'field OPS' }]);
  });
});
