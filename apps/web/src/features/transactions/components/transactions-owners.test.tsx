import { screen, waitFor, within } from '@testing-library/react';
import { HttpResponse } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { card, financeSession, subAccounts } from '../../../test/fixtures';
import { renderApp } from '../../../test/render-app';
import { serveCardOwners } from '../../../test/serve-card-owners';
import { indexRow, parseExportQuery, queryOf, serveIndex } from '../../../test/serve-index';
import { requestsTo, serve, server } from '../../../test/server';

const LIST = '/api/index/transactions';

const cards = [
  card({
    id: 'card_1',
    name: 'Elena travel',
    owner: { name: 'Elena Walsh', email: 'elena@example.test', person: true },
    team: 'Sales',
  }),
  card({
    id: 'card_2',
    name: 'Sam fuel',
    last4: '1111',
    owner: { name: 'Sam Lee' },
    team: 'Sales',
  }),
  card({ id: 'card_3', name: 'Spare card', last4: '2222' }),
];

const rows = [
  indexRow({ id: 'tx_1', cardId: 'card_1', description: 'Hotel night', amountCents: -20_000 }),
  indexRow({
    id: 'tx_2',
    cardId: 'card_2',
    date: '2026-03-04T12:00:00.000Z',
    description: 'Diesel',
    amountCents: -5_000,
  }),
  indexRow({
    id: 'tx_3',
    cardId: 'card_3',
    date: '2026-03-03T12:00:00.000Z',
    description: 'Stamps',
    amountCents: -1_000,
  }),
];

function serveScreen() {
  server.use(
    serve('subAccounts.list', () => HttpResponse.json({ items: subAccounts })),
    serve('cards.list', () => HttpResponse.json({ items: cards })),
  );
  serveCardOwners(cards);
  serveIndex(rows, { cards });
}

const lastListQuery = () => queryOf(requestsTo(LIST).at(-1)?.url ?? 'http://x/');
const lastTotalsQuery = () => queryOf(requestsTo(`${LIST}/totals`).at(-1)?.url ?? 'http://x/');
const chips = () => within(screen.getByRole('list', { name: 'Filters set' }));

describe("transactions by the cards' owners and teams", () => {
  it('filters by owners and teams given: each a chip, in the URL, the list and its figures', async () => {
    serveScreen();
    const { user, router } = renderApp('/transactions', { session: financeSession() });
    await screen.findByRole('row', { name: /Stamps/ });
    // One picker of both, in the folded filters: the owners, then the teams.
    const picker = () => screen.getByLabelText('Owner or team');
    // Asked for once reached for: the landing reads nothing more.
    expect(requestsTo('/api/card-owners')).toHaveLength(0);
    await user.click(picker());
    await within(picker()).findByRole('option', { name: 'Sam Lee' });
    expect(within(picker()).getByRole('group', { name: 'Owners' })).toHaveTextContent(
      'Elena WalshSam Lee',
    );
    expect(within(picker()).getByRole('group', { name: 'Teams' })).toHaveTextContent('Sales');
    await user.selectOptions(picker(), 'owner:Elena Walsh');
    await waitFor(() => expect(screen.queryByRole('row', { name: /Stamps/ })).toBeNull());
    expect(screen.getByRole('row', { name: /Hotel night/ })).toBeInTheDocument();
    expect(chips().getByRole('button', { name: 'Remove filter Owner: Elena Walsh' })).toBeVisible();
    expect(lastListQuery()).toEqual({ owner: 'Elena Walsh' });
    expect(lastTotalsQuery()).toEqual({ owner: 'Elena Walsh' });
    // A chosen owner is not offered again; another is added beside it.
    expect(
      within(picker())
        .getAllByRole('option')
        .map((o) => o.textContent),
    ).toEqual(['Add another…', 'Sam Lee', 'Sales']);
    await user.selectOptions(picker(), 'owner:Sam Lee');
    await waitFor(() => expect(lastListQuery()).toEqual({ owner: ['Elena Walsh', 'Sam Lee'] }));
    expect(await screen.findByRole('row', { name: /Diesel/ })).toBeInTheDocument();

    await user.selectOptions(picker(), 'team:Sales');
    await waitFor(() =>
      expect(lastListQuery()).toEqual({ owner: ['Elena Walsh', 'Sam Lee'], team: 'Sales' }),
    );
    expect(chips().getByRole('button', { name: 'Remove filter Team: Sales' })).toBeVisible();
    expect(screen.getByRole('button', { name: /^Filters/ })).toHaveTextContent('Filters (2 set)');

    await user.click(chips().getByRole('button', { name: 'Remove filter Owner: Elena Walsh' }));
    await waitFor(() =>
      expect(router.state.location.search).toEqual({ owner: 'Sam Lee', team: 'Sales' }),
    );
    await waitFor(() => expect(screen.queryByRole('row', { name: /Hotel night/ })).toBeNull());
  });

  it("a link's owners and teams are its filters, each a chip; the export names them too", async () => {
    serveScreen();
    const csv: string[] = [];
    server.use(
      serve('index.exportCsv', ({ request }) => {
        parseExportQuery(request.url);
        csv.push(request.url);
        return new HttpResponse('id\n', {
          headers: { 'Content-Type': 'text/csv', 'X-Request-Id': 'req-export-1' },
        });
      }),
      serve('transactions.exportReceipt', { requestId: 'req-export-1' }, () =>
        HttpResponse.json({ rows: 1, bytes: 3 }),
      ),
    );
    Object.assign(URL, { createObjectURL: vi.fn(() => 'blob:mock'), revokeObjectURL: vi.fn() });
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => undefined);
    const { user } = renderApp('/transactions?owner=sam%20lee&team=Sales', {
      session: financeSession(),
    });
    expect(await screen.findByRole('row', { name: /Diesel/ })).toBeInTheDocument();
    expect(screen.queryByRole('row', { name: /Hotel night/ })).toBeNull();
    expect(chips().getByText('Owner: sam lee')).toBeInTheDocument();
    expect(chips().getByText('Team: Sales')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Export CSV' }));
    await waitFor(() => expect(csv).toHaveLength(1));
    expect(queryOf(csv[0] ?? '')).toMatchObject({ owner: 'sam lee', team: 'Sales' });
  });

  it('totals by owner: a line per owner, the cards without one as "No owner"; a line narrows the list to its owner', async () => {
    serveScreen();
    const { user, router } = renderApp('/transactions', { session: financeSession() });
    await screen.findByRole('row', { name: /Stamps/ });
    await user.selectOptions(screen.getByLabelText('Totals by'), 'owner');
    const totals = await screen.findByRole('table', { name: 'Totals by owner' });
    expect(lastTotalsQuery()).toEqual({ by: 'owner' });
    const elena = within(totals).getByRole('row', { name: /Elena Walsh/ });
    expect(elena).toHaveTextContent('$200.00');
    const none = within(totals).getByRole('row', { name: /No owner/ });
    expect(none).toHaveTextContent('$10.00');
    // The cards with no owner are no filter: their line does not narrow the list.
    expect(within(none).queryByRole('button')).toBeNull();
    await user.click(within(elena).getByRole('button', { name: 'Elena Walsh' }));
    await waitFor(() => expect(router.state.location.search).toEqual({ owner: 'Elena Walsh' }));
    await waitFor(() => expect(lastListQuery()).toEqual({ owner: 'Elena Walsh' }));
    expect(chips().getByText('Owner: Elena Walsh')).toBeInTheDocument();
  });

  it('totals by team: one line for every card of a team, "No team" for the rest', async () => {
    serveScreen();
    const { user, router } = renderApp('/transactions?by=team', { session: financeSession() });
    const totals = await screen.findByRole('table', { name: 'Totals by team' });
    const sales = within(totals).getByRole('row', { name: /Sales/ });
    expect(sales).toHaveTextContent('$250.00');
    expect(within(totals).getByRole('row', { name: /No team/ })).toHaveTextContent('$10.00');
    await user.click(within(sales).getByRole('button', { name: 'Sales' }));
    await waitFor(() => expect(router.state.location.search).toEqual({ team: 'Sales' }));
  });
});

afterEach(() => vi.restoreAllMocks());
