import { dayRangeToBounds, instantToIsoDay, localTimeZone } from '@card-console/shared/dates';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { HttpResponse } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { periodDays } from '../../../lib/periods';
import {
  adminSession,
  card,
  financeSession,
  subAccounts,
  transaction,
} from '../../../test/fixtures';
import { renderApp } from '../../../test/render-app';
import {
  indexRow,
  indexTotalsOf,
  parseExportQuery,
  queryOf,
  serveIndex,
} from '../../../test/serve-index';
import { apiError, requestsTo, serve, server } from '../../../test/server';
import { inTimeZone } from '../../../test/time-zone';

const ZONE = 'America/New_York';
inTimeZone(ZONE);

const LIST = '/api/index/transactions';

const rows = [
  indexRow(),
  indexRow({
    id: 'tx_2',
    date: '2026-03-05T12:00:00.000Z',
    description: 'Refund for chairs',
    amountCents: 4_999,
    status: 'refund',
    merchant: undefined,
  }),
  indexRow({
    id: 'tx_3',
    subAccountId: 'sa_mkt',
    date: '2026-03-04T12:00:00.000Z',
    description: 'Design tool',
    amountCents: -30_000,
    merchant: {
      description: 'FIGMA',
      categoryCode: '5734',
      categoryName: 'Computer Software Stores',
    },
  }),
  indexRow({
    id: 'tx_4',
    subAccountId: 'sa_mkt',
    date: '2026-03-03T12:00:00.000Z',
    description: 'Blocked purchase',
    amountCents: -99_00,
    status: 'declined',
    declineReason: 'Card paused',
  }),
];

function serveScreen(options: { rows?: typeof rows; pageSize?: number } = {}) {
  server.use(
    serve('subAccounts.list', () => HttpResponse.json({ items: subAccounts })),
    serve('cards.list', () => HttpResponse.json({ items: [card()] })),
    serve('cards.get', () => HttpResponse.json(card())),
    serve('transactions.get', ({ params }) => {
      const found = rows.find((t) => t.id === params.id);
      return found ? HttpResponse.json(found) : apiError(404, 'not_found', 'No such transaction');
    }),
  );
  serveIndex(options.rows ?? rows, { pageSize: options.pageSize ?? 100 });
}

/** The last list request's query, as the BFF reads it (cursor-less pages only). */
const lastListQuery = () => queryOf(requestsTo(LIST).at(-1)?.url ?? 'http://x/');
const lastTotalsQuery = () => queryOf(requestsTo(`${LIST}/totals`).at(-1)?.url ?? 'http://x/');

describe('transactions screen', () => {
  it("shows every sub account by default, each row naming its own, and the whole set's count and sums", async () => {
    serveScreen({ pageSize: 2 });
    const { router } = renderApp('/transactions', { session: financeSession() });
    const debit = await screen.findByRole('row', { name: /Coffee beans/ });
    expect(router.state.location.search).toEqual({});
    expect(lastListQuery()).toEqual({});
    expect(requestsTo(LIST)).toHaveLength(1);
    // The count and sums are the whole filtered set's (four rows), not the page's (two).
    const figures = screen.getByText('4 transactions').closest('p') as HTMLElement;
    // Card spend: $12.50 and $300.00 less the $49.99 refund; the declined charge ($99.00) moved
    // no money: in no total, told apart.
    expect(figures).toHaveTextContent('Card spend $262.51');
    expect(figures).toHaveTextContent('Refunds $49.99');
    expect(figures).toHaveTextContent('Posted -$262.51');
    expect(figures).not.toHaveTextContent(/declined|Debits|Credits/i);
    expect(screen.getByText(/^No money moved:/)).toHaveTextContent(
      'No money moved: Declined (attempted) 1 (-$99.00)',
    );
    expect(screen.getByText(/Showing 1–2, more available/)).toBeInTheDocument();
    // Spend in the text colour with no sign; its kind is a word for screen readers.
    const spend = within(debit).getByText('$12.50', { exact: false });
    expect(spend).toHaveClass('amount', 'debit');
    expect(spend).toHaveTextContent(/^Debit \$12\.50$/);
    expect(within(debit).queryByText(/−/)).toBeNull();
    expect(within(debit).getByText('Settled', { selector: '.badge' })).toBeInTheDocument();
    expect(within(debit).getByText('BLUE BOTTLE SF')).toBeInTheDocument();
    expect(within(debit).getByText('Operations')).toBeInTheDocument();
    expect(screen.getByRole('columnheader', { name: 'Sub account' })).toBeInTheDocument();
    const credit = screen.getByRole('row', { name: /Refund for chairs/ });
    expect(within(credit).getByText(/\+\$49\.99/)).toBeInTheDocument();
    // Dates in the person's zone (15:30 UTC is 10:30 in New York), in full in the tooltip.
    const date = within(debit).getByText(/10:30/);
    expect(date).toHaveTextContent(/^Mar 5(, 2026)?, 10:30\sAM$/);
    expect(date.getAttribute('title')).toMatch(/2026/);
    // Every row is in the page (no virtual window): the browser's find sees them all.
    expect(screen.getByRole('region', { name: 'Transactions table' })).toContainElement(debit);
    // How fresh the index is.
    expect(screen.getByText(/^Updated/)).toBeInTheDocument();
  });

  it('a set of declines only is said as declines, "All declined (attempted), $X: no money moved", not as spend', async () => {
    serveScreen();
    renderApp('/transactions?status=%5B%22declined%22%5D', { session: financeSession() });
    const figures = (await screen.findByText('1 transaction')).closest('p') as HTMLElement;
    expect(figures).toHaveTextContent(
      /^1 transaction\s*All declined \(attempted\), -\$99\.00: no money moved$/,
    );
    expect(figures).not.toHaveTextContent(/Card spend|Posted|Debits|Credits/);
  });

  it('a declined charge reads as no money moved: labelled Declined in its row, no posted time in its detail', async () => {
    serveScreen();
    const { user } = renderApp('/transactions', { session: financeSession() });
    const row = await screen.findByRole('row', { name: /Blocked purchase/ });
    const amount = within(row).getByText('$99.00').closest('.amount') as HTMLElement;
    expect(amount).toHaveClass('declined');
    expect(amount).toHaveTextContent(/^Declined\s*\$99\.00$/);
    expect(within(row).getByText('Declined', { selector: '.badge' })).toBeInTheDocument();
    await user.click(within(row).getByRole('link', { name: 'Blocked purchase' }));
    await screen.findByRole('heading', { name: 'Blocked purchase' });
    expect(screen.queryByText('Posted', { selector: 'dt' })).toBeNull();
    expect(screen.getByText('Decline reason', { selector: 'dt' })).toBeInTheDocument();
  });

  it('one sub account: asked for by id, and no sub-account column', async () => {
    serveScreen();
    const { user, router } = renderApp('/transactions', { session: financeSession() });
    await screen.findByRole('row', { name: /Coffee beans/ });
    await user.selectOptions(screen.getByLabelText('Sub account'), 'sa_mkt');
    await waitFor(() => expect(router.state.location.search).toEqual({ subAccountId: 'sa_mkt' }));
    await screen.findByRole('row', { name: /Design tool/ });
    expect(screen.queryByRole('row', { name: /Coffee beans/ })).not.toBeInTheDocument();
    expect(lastListQuery()).toEqual({ subAccountId: 'sa_mkt' });
    expect(screen.queryByRole('columnheader', { name: 'Sub account' })).not.toBeInTheDocument();
    expect(screen.getByText('2 transactions')).toBeInTheDocument();
  });

  it('names the card that paid on every row: by name and last four, else by id, else "—"', async () => {
    const long = 'Ava Patel (travel) '.concat('x'.repeat(100));
    serveScreen({
      rows: [
        indexRow({ id: 'tx_a', description: 'Named', card: { name: long, last4: '1881' } }),
        indexRow({ id: 'tx_b', description: 'Unnamed', cardId: 'card_gone', card: undefined }),
        indexRow({ id: 'tx_c', description: 'No card', cardId: undefined, card: undefined }),
      ],
    });
    renderApp('/transactions', { session: financeSession() });
    const named = await screen.findByRole('row', { name: /Named/ });
    const link = within(named).getByRole('link', { name: `${long} •••• 1881` });
    expect(link).toHaveAttribute('href', '/cards/card_1');
    const unnamed = screen.getByRole('row', { name: /Unnamed/ });
    expect(within(unnamed).getByRole('link', { name: 'card_gone' })).toHaveAttribute(
      'href',
      '/cards/card_gone',
    );
    const none = screen.getByRole('row', { name: /No card/ });
    expect(none.querySelector('td.col-card')).toHaveTextContent(/^—$/);
  });

  it("with one sub account chosen, the card filter offers only that sub account's cards", async () => {
    serveScreen({
      rows: [
        indexRow(),
        indexRow({
          id: 'tx_9',
          subAccountId: 'sa_mkt',
          description: 'Ads',
          cardId: 'card_2',
          card: { name: 'Design card', last4: '1111' },
        }),
      ],
    });
    server.use(
      serve('cards.list', () =>
        HttpResponse.json({
          items: [card(), card({ id: 'card_2', name: 'Design card', last4: '1111' })],
        }),
      ),
    );
    const { user } = renderApp('/transactions', { session: financeSession() });
    await screen.findByRole('row', { name: /Coffee beans/ });
    const options = () =>
      within(screen.getByLabelText('Card'))
        .getAllByRole('option')
        .map((o) => o.textContent);
    // Every sub account: every card.
    await user.click(screen.getByLabelText('Card'));
    await waitFor(() =>
      expect(options()).toEqual(['All cards', 'Travel card ·4242', 'Design card ·1111']),
    );
    await user.selectOptions(screen.getByLabelText('Sub account'), 'sa_mkt');
    await screen.findByRole('row', { name: /Ads/ });
    await waitFor(() => expect(options()).toEqual(['All cards', 'Design card ·1111']));
  });

  it('a declined row says why, under its status (no column empty on every other row)', async () => {
    serveScreen();
    renderApp('/transactions', { session: financeSession() });
    const declined = await screen.findByRole('row', { name: /Blocked purchase/ });
    const status = declined.querySelector('td.col-status') as HTMLElement;
    expect(within(status).getByText('Declined', { selector: '.badge' })).toBeInTheDocument();
    expect(within(status).getByText('Card paused')).toBeInTheDocument();
    expect(screen.getByRole('columnheader', { name: 'Status' })).toBeInTheDocument();
    expect(screen.queryByRole('columnheader', { name: 'Decline reason' })).not.toBeInTheDocument();
  });

  it("sends the chosen days as inclusive Unix-ms bounds in the person's time zone", async () => {
    serveScreen();
    expect(localTimeZone()).toBe(ZONE);
    const { router, user } = renderApp('/transactions', { session: financeSession() });
    await screen.findByRole('row', { name: /Coffee beans/ });
    await user.selectOptions(screen.getByLabelText('Period'), 'custom');
    fireEvent.change(screen.getByLabelText('From'), { target: { value: '2026-03-01' } });
    await waitFor(() => expect(router.state.location.search).toMatchObject({ from: '2026-03-01' }));
    fireEvent.change(screen.getByLabelText('To'), { target: { value: '2026-03-08' } });
    // 8 March 2026 is the day New York moves its clocks forward: a 23-hour day.
    const expected = dayRangeToBounds('2026-03-01', '2026-03-08', ZONE);
    await waitFor(() =>
      expect(lastListQuery()).toEqual({ from: String(expected.from), to: String(expected.to) }),
    );
    expect((expected.to ?? 0) - (expected.from ?? 0) + 1).toBe((8 * 24 - 1) * 3_600_000);
    expect(router.state.location.search).toEqual({ from: '2026-03-01', to: '2026-03-08' });
  });

  it('a date preset is kept by name in the URL and asks for its days on the day it is opened', async () => {
    serveScreen();
    const { router, user } = renderApp('/transactions', { session: financeSession() });
    await screen.findByRole('row', { name: /Coffee beans/ });
    await user.selectOptions(screen.getByLabelText('Period'), 'last-quarter');
    await waitFor(() => expect(router.state.location.search).toEqual({ period: 'last-quarter' }));
    const days = periodDays('last-quarter', instantToIsoDay(Date.now(), ZONE));
    const bounds = dayRangeToBounds(days.from, days.to, ZONE);
    await waitFor(() =>
      expect(lastListQuery()).toEqual({ from: String(bounds.from), to: String(bounds.to) }),
    );
    // "Custom days" starts from the preset's days, to be edited.
    await user.selectOptions(screen.getByLabelText('Period'), 'custom');
    await waitFor(() =>
      expect(router.state.location.search).toEqual({ from: days.from, to: days.to }),
    );
    expect(screen.getByLabelText('From')).toHaveValue(days.from);
  });

  it('keeps a From after the To as typed, names what to change, and applies nothing until it is fixed', async () => {
    serveScreen();
    const { router } = renderApp('/transactions?to=%222026-03-08%22', {
      session: financeSession(),
    });
    await screen.findByRole('row', { name: /Coffee beans/ });
    const before = requestsTo(LIST).length;
    fireEvent.change(screen.getByLabelText('From'), { target: { value: '2026-03-09' } });
    expect(screen.getByRole('alert')).toHaveTextContent(
      'From (Mar 9, 2026) is after To (Mar 8, 2026). Choose a From on or before Mar 8, 2026',
    );
    expect(screen.getByLabelText('From')).toHaveValue('2026-03-09');
    expect(requestsTo(LIST)).toHaveLength(before);
    expect(router.state.location.search).toEqual({ to: '2026-03-08' });
    fireEvent.change(screen.getByLabelText('To'), { target: { value: '2026-03-10' } });
    await waitFor(() =>
      expect(router.state.location.search).toEqual({ from: '2026-03-09', to: '2026-03-10' }),
    );
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('several statuses at once, as a repeated parameter; a change starts again at page 1', async () => {
    serveScreen({ pageSize: 1 });
    const { user, router } = renderApp('/transactions', { session: financeSession() });
    await screen.findByRole('row', { name: /Coffee beans/ });
    await user.click(screen.getByRole('button', { name: 'Load more' }));
    await screen.findByRole('row', { name: /Refund for chairs/ });
    expect(router.state.location.search).toEqual({ pages: '2' });
    await user.click(screen.getByText('All statuses'));
    await user.click(screen.getByRole('checkbox', { name: 'Declined' }));
    await waitFor(() => expect(router.state.location.search).toEqual({ status: 'declined' }));
    await user.click(screen.getByRole('checkbox', { name: 'Refund' }));
    await waitFor(() =>
      expect(router.state.location.search).toEqual({ status: ['declined', 'refund'] }),
    );
    // The field says how many (their chips name each): several names would not fit whole.
    const summary = () => document.querySelector('.status-choices summary');
    expect(summary()).toHaveTextContent(/^2 statuses$/);
    // From page 1 again: the newest of the two, and the count of both.
    await screen.findByText('2 transactions');
    expect(lastListQuery()).toEqual({ status: ['declined', 'refund'] });
    expect(screen.getAllByRole('row', { name: /Refund for chairs|Blocked purchase/ })).toHaveLength(
      1,
    );
    // Each is a chip that removes itself.
    await user.click(screen.getByRole('button', { name: 'Remove filter Status: Refund' }));
    await waitFor(() => expect(router.state.location.search).toEqual({ status: 'declined' }));
    expect(summary()).toHaveTextContent(/^Declined$/);
  });

  it("the Overview's declines without a reason: asked for as such, each named in a chip that removes itself", async () => {
    serveScreen();
    const { user, router } = renderApp(
      '/transactions?status=declined&card=with&noDeclineReason=1',
      {
        session: financeSession(),
      },
    );
    await screen.findByRole('button', { name: 'Remove filter No decline reason' });
    expect(lastListQuery()).toEqual({ status: 'declined', card: 'with', noDeclineReason: '1' });
    expect(lastTotalsQuery()).toMatchObject({ card: 'with', noDeclineReason: '1' });
    await user.click(screen.getByRole('button', { name: 'Remove filter With a card' }));
    await waitFor(() =>
      expect(router.state.location.search).toEqual({ status: 'declined', noDeclineReason: '1' }),
    );
    await user.click(screen.getByRole('button', { name: 'Remove filter No decline reason' }));
    await waitFor(() => expect(router.state.location.search).toEqual({ status: 'declined' }));
    expect(lastListQuery()).toEqual({ status: 'declined' });
  });

  it('a category search finds everyday themes: "software" asks for its codes, named in chips', async () => {
    serveScreen();
    const { user, router } = renderApp('/transactions', { session: financeSession() });
    await screen.findByRole('row', { name: /Coffee beans/ });
    const field = screen.getByRole('combobox', { name: 'Category' });
    await user.type(field, 'softw');
    const option = await screen.findByRole('option', { name: /^software/ });
    expect(option).toHaveTextContent('3 categories');
    await user.keyboard('{Enter}');
    await waitFor(() =>
      expect(router.state.location.search).toEqual({ category: ['5734', '5817', '7372'] }),
    );
    await screen.findByRole('row', { name: /Design tool/ });
    expect(screen.queryByRole('row', { name: /Coffee beans/ })).not.toBeInTheDocument();
    expect(lastListQuery()).toEqual({ category: ['5734', '5817', '7372'] });
    expect(
      screen.getByRole('button', { name: 'Remove filter Category: 5734 Computer Software Stores' }),
    ).toBeInTheDocument();
    // A group by its name.
    await user.type(field, 'business');
    await user.click(await screen.findByRole('option', { name: /Business services/ }));
    await waitFor(() =>
      expect(router.state.location.search).toMatchObject({ categoryGroup: 'business' }),
    );
    expect(field).toHaveValue('');
  });

  it('amounts in dollars become sizes in cents; a wrong one says so and applies nothing', async () => {
    serveScreen();
    const { user, router } = renderApp('/transactions', { session: financeSession() });
    await screen.findByRole('row', { name: /Coffee beans/ });
    await user.type(screen.getByLabelText('Amount from'), '1,00x{Enter}');
    expect(
      await screen.findByText('Enter amounts in dollars, such as 1,234.50.'),
    ).toBeInTheDocument();
    expect(router.state.location.search).toEqual({});
    await user.clear(screen.getByLabelText('Amount from'));
    await user.type(screen.getByLabelText('Amount from'), '50{Enter}');
    await waitFor(() => expect(router.state.location.search).toEqual({ min: '50' }));
    await waitFor(() => expect(lastListQuery()).toEqual({ minCents: '5000' }));
    await screen.findByRole('row', { name: /Design tool/ });
    expect(screen.getByText('2 transactions')).toBeInTheDocument();
    expect(
      screen.getByRole('button', { name: 'Remove filter Amount from $50.00' }),
    ).toBeInTheDocument();
  });

  it('searches the words typed (after a pause, or at once on Enter)', async () => {
    serveScreen();
    const { user, router } = renderApp('/transactions', { session: financeSession() });
    await screen.findByRole('row', { name: /Coffee beans/ });
    await user.type(screen.getByLabelText('Search'), 'figma');
    await waitFor(() => expect(router.state.location.search).toEqual({ q: 'figma' }));
    await waitFor(() => expect(lastListQuery()).toEqual({ q: 'figma' }));
    await screen.findByText('1 transaction');
    expect(screen.getByRole('row', { name: /Design tool/ })).toBeInTheDocument();
  });

  it('Amount sorts by size, largest first, and again smallest first', async () => {
    serveScreen();
    const { user, router } = renderApp('/transactions', { session: financeSession() });
    await screen.findByRole('row', { name: /Coffee beans/ });
    await user.click(screen.getByRole('button', { name: /^Amount/ }));
    await waitFor(() => expect(router.state.location.search).toEqual({ sort: 'amount' }));
    await waitFor(() =>
      expect(
        screen
          .getAllByRole('row')
          .slice(1)
          .map((r) => r.textContent)[0],
      ).toMatch(/Design tool/),
    );
    expect(screen.getByRole('columnheader', { name: /Amount/ })).toHaveAttribute(
      'aria-sort',
      'descending',
    );
    await user.click(screen.getByRole('button', { name: /^Amount/ }));
    await waitFor(() =>
      expect(router.state.location.search).toEqual({ sort: 'amount', dir: 'asc' }),
    );
    expect(lastListQuery()).toEqual({ sort: 'amount', direction: 'asc' });
  });

  it('totals by category or merchant: a line the filter cannot ask for (a code not of four digits, a blank merchant) narrows nothing', async () => {
    const merchant = (description: string, categoryCode: string) => ({
      description,
      categoryCode,
      categoryName: 'Computer Software Stores',
    });
    serveScreen({
      rows: [
        indexRow({ id: 'a', description: 'Design tool', merchant: merchant('FIGMA', '5734') }),
        indexRow({ id: 'b', description: 'Odd code', merchant: merchant('   ', 'abc') }),
      ],
    });
    const { user } = renderApp('/transactions', { session: financeSession() });
    await screen.findByRole('row', { name: /Design tool/ });
    await user.selectOptions(screen.getByLabelText('Totals by'), 'category');
    const byCategory = await screen.findByRole('table', { name: 'Totals by category' });
    expect(within(byCategory).getByRole('button', { name: /^5734/ })).toBeInTheDocument();
    const odd = within(byCategory).getByRole('row', { name: /abc/ });
    expect(within(odd).queryByRole('button')).toBeNull();
    await user.selectOptions(screen.getByLabelText('Totals by'), 'merchant');
    const byMerchant = await screen.findByRole('table', { name: 'Totals by merchant' });
    expect(within(byMerchant).getByRole('button', { name: 'Figma' })).toBeInTheDocument();
    const blank = within(byMerchant).getByRole('row', { name: /No merchant/ });
    expect(within(blank).queryByRole('button')).toBeNull();
  });

  it("totals by card: the set's spend per card, and a card's line narrows the list to it", async () => {
    serveScreen();
    const { user, router } = renderApp('/transactions', { session: financeSession() });
    await screen.findByRole('row', { name: /Coffee beans/ });
    await user.selectOptions(screen.getByLabelText('Totals by'), 'card');
    const totals = await screen.findByRole('table', { name: 'Totals by card' });
    // The dimension is the figures' own: the rows' query does not name it.
    expect(lastTotalsQuery()).toEqual({ by: 'card' });
    expect(lastListQuery()).toEqual({});
    const line = within(totals).getByRole('row', { name: /Travel card/ });
    // Card spend net of the refund; the declined charge is no spend: its amount has its own
    // column, "Declined (attempted)".
    expect(line).toHaveTextContent('$262.51');
    expect(
      within(totals).getByRole('columnheader', { name: 'Declined (attempted)' }),
    ).toBeInTheDocument();
    expect(line).toHaveTextContent('-$99.00');
    await user.click(within(line).getByRole('button', { name: 'Travel card' }));
    await waitFor(() => expect(router.state.location.search).toEqual({ cardId: 'card_1' }));
  });

  it('totals by merchant: a merchant however written is one line, and its line narrows the list to it by name', async () => {
    serveScreen();
    const { user, router } = renderApp('/transactions', { session: financeSession() });
    await screen.findByRole('row', { name: /Coffee beans/ });
    await user.selectOptions(screen.getByLabelText('Totals by'), 'merchant');
    const totals = await screen.findByRole('table', { name: 'Totals by merchant' });
    expect(lastTotalsQuery()).toEqual({ by: 'merchant' });
    const [first] = within(totals).getAllByRole('button');
    const name = first?.textContent ?? '';
    expect(name).not.toBe('');
    await user.click(first as HTMLElement);
    await waitFor(() => expect(router.state.location.search).toEqual({ merchantName: name }));
    await waitFor(() => expect(lastListQuery()).toEqual({ merchantName: name }));
  });

  it('while the index syncs it says how far it is, and asks again until it is done', async () => {
    server.use(serve('subAccounts.list', () => HttpResponse.json({ items: subAccounts })));
    let asked = 0;
    server.use(
      serve('index.transactions', () => {
        asked++;
        const syncing = asked < 3;
        return HttpResponse.json({
          items: syncing ? [] : [indexRow()],
          summary: indexTotalsOf(syncing ? [] : [indexRow()]),
          freshness: syncing
            ? {
                syncing: true,
                days: 400,
                daysDone: 120 * asked,
                rows: 6_150 * asked,
                // Its estimated end, once the BFF has one (after the first answer here).
                ...(asked > 1 ? { doneAt: Date.now() + 4 * 60_000 + 10_000 } : {}),
              }
            : { syncing: false, days: 0, daysDone: 0, updatedAt: Date.now() },
        });
      }),
    );
    renderApp('/transactions', { session: financeSession() });
    expect(
      await screen.findByText(
        'Syncing with the card service: this sync has read 120 of 400 days and 6,150 transactions. The figures grow as it goes.',
      ),
    ).toBeInTheDocument();
    expect(
      screen.getByText('No transactions found yet: the sync is still reading the card service.'),
    ).toBeInTheDocument();
    expect(
      await screen.findByText(
        'Syncing with the card service: this sync has read 240 of 400 days and 12,300 transactions, about 4 minutes left. The figures grow as it goes.',
        undefined,
        { timeout: 3_000 },
      ),
    ).toBeInTheDocument();
    await screen.findByRole('row', { name: /Coffee beans/ }, { timeout: 5_000 });
    expect(screen.getByText(/^Updated/)).toBeInTheDocument();
    expect(asked).toBe(3);
  });

  it('a failed sync says why, when it is tried again, and what the list holds meanwhile', async () => {
    server.use(serve('subAccounts.list', () => HttpResponse.json({ items: subAccounts })));
    const at = new Date(2026, 10, 24, 9, 15, 0).getTime();
    server.use(
      serve('index.transactions', () =>
        HttpResponse.json({
          items: [indexRow()],
          summary: indexTotalsOf([indexRow()]),
          freshness: {
            syncing: false,
            days: 0,
            daysDone: 0,
            updatedAt: at - 3_600_000,
            failed: { reason: 'The card service repeated a page.', at, retryAt: at + 20_000 },
          },
        }),
      ),
    );
    renderApp('/transactions', { session: financeSession() });
    const status = await screen.findByText(/^The last sync with the card service failed/);
    expect(status).toHaveTextContent(
      /^The last sync with the card service failed: The card service repeated a page\. It is tried again at .+\. The list is as of .+\.$/,
    );
    const [retry, asOf] = within(status).getAllByText((_, el) => el?.tagName === 'TIME');
    expect(retry).toHaveAttribute('datetime', new Date(at + 20_000).toISOString());
    expect(asOf).toHaveAttribute('datetime', new Date(at - 3_600_000).toISOString());
    expect(screen.getByRole('row', { name: /Coffee beans/ })).toBeInTheDocument();
  });

  it('Refresh asks the BFF to read the open days again, then shows the list from its first page', async () => {
    serveScreen();
    const { user } = renderApp('/transactions?subAccountId=sa_ops', { session: financeSession() });
    await screen.findByRole('row', { name: /Coffee beans/ });
    const before = requestsTo(LIST).length;
    await user.click(screen.getByRole('button', { name: 'Refresh' }));
    await waitFor(() => expect(requestsTo(LIST).length).toBeGreaterThanOrEqual(before + 2));
    const refresh = requestsTo(LIST)
      .map((r) => queryOf(r.url))
      .find((q) => q.refresh);
    expect(refresh).toEqual({ subAccountId: 'sa_ops', refresh: '1', limit: '1' });
    expect(lastListQuery()).toEqual({ subAccountId: 'sa_ops' });
  });

  it('opens a transaction as the card service has it, and goes back to the same list', async () => {
    serveScreen();
    const { user, router } = renderApp('/transactions?status=%5B%22settled%22%5D', {
      session: financeSession(),
    });
    await user.click(await screen.findByRole('link', { name: 'Coffee beans' }));
    expect(await screen.findByRole('heading', { name: 'Coffee beans' })).toBeInTheDocument();
    expect(requestsTo('/api/transactions/tx_1')).toHaveLength(1);
    for (const text of ['BLUE BOTTLE SF', 'REF-0001', '1.087', 'tx_1']) {
      expect(screen.getByText(text)).toBeInTheDocument();
    }
    await user.click(screen.getByRole('link', { name: '← Back to transactions' }));
    await screen.findByRole('heading', { name: 'Transactions' });
    expect(router.state.location.search).toEqual({ status: 'settled' });
  });

  it('a pending charge has not posted yet: its detail says so instead of a posted time', async () => {
    serveScreen();
    server.use(
      serve('transactions.get', () =>
        HttpResponse.json(transaction({ status: 'pending', date: '2026-03-05T15:04:00.000Z' })),
      ),
    );
    const view = renderApp('/transactions/tx_1', { session: financeSession() });
    await screen.findByRole('heading', { name: 'Coffee beans' });
    const posted = () => screen.getByText('Posted', { selector: 'dt' }).nextElementSibling;
    expect(posted()).toHaveTextContent(/^Not yet \(pending\)$/);
    view.unmount();
    server.use(
      serve('transactions.get', () =>
        HttpResponse.json(transaction({ status: 'settled', date: '2026-03-05T15:04:00.000Z' })),
      ),
    );
    renderApp('/transactions/tx_1', { session: financeSession() });
    await screen.findByRole('heading', { name: 'Coffee beans' });
    expect(posted()).toHaveTextContent(/Mar 5, 2026/);
  });

  it("the detail keeps the merchant's text and links to every transaction at its merchant, however written", async () => {
    serveScreen();
    server.use(
      serve('transactions.get', () =>
        HttpResponse.json(
          transaction({
            merchant: {
              description: 'SQ *BLUE BOTTLE SF',
              categoryCode: '5814',
              categoryName: 'Fast Food Restaurants',
            },
          }),
        ),
      ),
      serve('index.merchant', () =>
        HttpResponse.json({
          key: 'blue bottle',
          name: 'Blue Bottle',
          descriptors: ['BLUE BOTTLE #12 OAKLAND CA', 'SQ *BLUE BOTTLE SF'],
          more: 1,
          freshness: { syncing: false, days: 0, daysDone: 0 },
        }),
      ),
    );
    const { user, router } = renderApp('/transactions/tx_1', { session: financeSession() });
    expect(await screen.findByText('SQ *BLUE BOTTLE SF')).toBeInTheDocument();
    expect(await screen.findByText('(3 ways it is written)')).toBeInTheDocument();
    const [asked] = requestsTo('/api/index/merchant');
    expect(new URL(asked?.url ?? 'http://x').searchParams.get('descriptor')).toBe(
      'SQ *BLUE BOTTLE SF',
    );
    await user.click(await screen.findByRole('link', { name: 'All at Blue Bottle' }));
    await screen.findByRole('heading', { name: 'Transactions' });
    // By the merchant's name: all three texts, not the two the answer named.
    expect(router.state.location.search).toEqual({ merchantName: 'Blue Bottle' });
    expect(
      await screen.findByRole('button', { name: 'Remove filter Merchant: Blue Bottle' }),
    ).toBeInTheDocument();
    const listed = requestsTo('/api/index/transactions').at(-1);
    expect(new URL(listed?.url ?? 'http://x').searchParams.getAll('merchantName')).toEqual([
      'Blue Bottle',
    ]);
  });

  it('an admin names the merchant from the detail: the name it goes by, or the refusal said', async () => {
    serveScreen();
    let named = { key: 'blue bottle', name: 'Blue Bottle' };
    const merchantAnswer = () =>
      HttpResponse.json({
        ...named,
        descriptors: ['SQ *BLUE BOTTLE SF', 'BLUE BOTTLE #12 OAKLAND CA'],
        more: 0,
        ...(named.key === 'blue bottle'
          ? {}
          : { named: { by: 'admin@demo.test', at: '2026-12-02T01:00:00.000Z', groups: 1 } }),
        freshness: { syncing: false, days: 0, daysDone: 0 },
      });
    server.use(
      serve('transactions.get', () =>
        HttpResponse.json(
          transaction({
            merchant: { description: 'SQ *BLUE BOTTLE SF', categoryCode: '5814' },
          }),
        ),
      ),
      serve('index.merchant', merchantAnswer),
      serve('index.nameMerchant', async ({ request }) => {
        const body = (await request.json()) as { merchant: string; name: string };
        if (body.name === 'Nobody') {
          return apiError(404, 'not_found', 'No merchant called “Blue Bottle” is in the index.');
        }
        named = { key: body.name.toLowerCase(), name: body.name };
        return HttpResponse.json({ ...named, groups: 1 });
      }),
      serve('index.unnameMerchant', () => {
        const was = named;
        named = { key: 'blue bottle', name: 'Blue Bottle' };
        return HttpResponse.json({ ...was, groups: 1 });
      }),
    );
    const { user } = renderApp('/transactions/tx_1', { session: adminSession() });
    await user.click(await screen.findByRole('button', { name: 'Name this merchant' }));
    const form = screen.getByRole('form', { name: 'Name the merchant Blue Bottle' });
    const field = within(form).getByLabelText('Merchant name');
    expect(field).toHaveValue('Blue Bottle');
    await user.clear(field);
    await user.type(field, '***{Enter}');
    expect(within(form).getByText('Type a name with a letter (a to z) or a digit.')).toBeVisible();
    expect(requestsTo('/api/index/merchants/name', 'PUT')).toHaveLength(0);
    await user.clear(field);
    await user.type(field, 'Nobody{Enter}');
    expect(await within(form).findByText(/No merchant called/)).toBeVisible();
    expect(field).toHaveValue('Nobody');
    await user.clear(field);
    await user.type(field, 'Blue Bottle Coffee{Enter}');
    expect(
      await screen.findByText(
        '“Blue Bottle” now goes by “Blue Bottle Coffee”, in every list, total and file.',
      ),
    ).toHaveFocus();
    const sent = requestsTo('/api/index/merchants/name', 'PUT');
    expect(await sent.at(-1)?.json()).toEqual({
      merchant: 'Blue Bottle',
      name: 'Blue Bottle Coffee',
    });
    // The detail reads the merchant again: its new name, and who gave it.
    expect(await screen.findByRole('link', { name: 'All at Blue Bottle Coffee' })).toBeVisible();
    expect(screen.getByText(/named by admin@demo.test/)).toBeVisible();
    // Taken off: the detail says so though the button is gone once the merchant is read again.
    await user.click(screen.getByRole('button', { name: 'Take the name off' }));
    expect(
      await screen.findByText(
        '“Blue Bottle Coffee” is taken off: the merchant goes by its own name again.',
      ),
    ).toHaveFocus();
    expect(await screen.findByRole('link', { name: 'All at Blue Bottle' })).toBeVisible();
    expect(screen.queryByRole('button', { name: 'Take the name off' })).toBeNull();
  });

  it('finance people see the merchant but cannot name it', async () => {
    serveScreen();
    server.use(
      serve('transactions.get', () =>
        HttpResponse.json(
          transaction({ merchant: { description: 'SQ *BLUE BOTTLE SF', categoryCode: '5814' } }),
        ),
      ),
      serve('index.merchant', () =>
        HttpResponse.json({
          key: 'blue bottle',
          name: 'Blue Bottle',
          descriptors: ['SQ *BLUE BOTTLE SF'],
          more: 0,
          freshness: { syncing: false, days: 0, daysDone: 0 },
        }),
      ),
    );
    renderApp('/transactions/tx_1', { session: financeSession() });
    expect(await screen.findByRole('link', { name: 'All at Blue Bottle' })).toBeVisible();
    expect(screen.queryByRole('button', { name: 'Name this merchant' })).toBeNull();
  });

  it('shows the decline reason on the detail of a declined transaction', async () => {
    serveScreen();
    server.use(
      serve('transactions.get', () =>
        HttpResponse.json(transaction({ status: 'declined', declineReason: 'Card paused' })),
      ),
    );
    renderApp('/transactions/tx_1', { session: financeSession() });
    expect(await screen.findByText('Card paused')).toBeInTheDocument();
  });

  it('writes the amount in its original currency by the USD amount\'s rule: spend bare, money back with "+"', async () => {
    serveScreen();
    const amounts = async (t: Parameters<typeof transaction>[0]) => {
      server.use(serve('transactions.get', () => HttpResponse.json(transaction(t))));
      const view = renderApp('/transactions/tx_1', { session: financeSession() });
      await screen.findByRole('heading', { name: 'Coffee beans' });
      const original = screen.getByText('Original amount', { selector: 'dt' }).nextElementSibling;
      const main = document.querySelector('p.big')?.textContent;
      const text = [main, original?.textContent];
      view.unmount();
      return text;
    };
    expect(
      await amounts({
        amountCents: -1_250,
        originalCurrency: { code: 'EUR', amountCents: -1_150, conversionRate: 1.087 },
      }),
    ).toEqual(['Debit $12.50', '€11.50 (EUR)']);
    expect(
      await amounts({
        amountCents: 1_250,
        status: 'refund',
        originalCurrency: { code: 'EUR', amountCents: 1_150, conversionRate: 1.087 },
      }),
    ).toEqual(['Credit +$12.50', '+€11.50 (EUR)']);
    // The service's amount is in hundredths whatever the currency (as the CSV writes it): $10 at
    // 0.0067 USD a yen is ¥1,492.54, not ¥149,254.
    expect(
      await amounts({
        amountCents: -1_000,
        originalCurrency: { code: 'JPY', amountCents: -149_254, conversionRate: 0.0067 },
      }),
    ).toEqual(['Debit $10.00', '¥1,492.54 (JPY)']);
  });

  describe('export', () => {
    const body = 'id,date\ntx_1,2026-03-05\n';
    let clicked: HTMLAnchorElement[];
    let createObjectURL: ReturnType<typeof vi.fn>;
    beforeEach(() => {
      clicked = [];
      createObjectURL = vi.fn(() => 'blob:mock');
      Object.assign(URL, { createObjectURL, revokeObjectURL: vi.fn() });
      vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (
        this: HTMLAnchorElement,
      ) {
        clicked.push(this);
      });
    });
    afterEach(() => vi.restoreAllMocks());

    /** The BFF's export: the query checked as it checks it, and the headers given. */
    function serveExport(headers: Record<string, string> = {}) {
      const csv: Request[] = [];
      server.use(
        serve('index.exportCsv', ({ request }) => {
          parseExportQuery(request.url);
          csv.push(request);
          return new HttpResponse(body, {
            headers: { 'Content-Type': 'text/csv', 'X-Request-Id': 'req-export-1', ...headers },
          });
        }),
        serve('transactions.exportReceipt', { requestId: 'req-export-1' }, () =>
          HttpResponse.json({ rows: 1, bytes: body.length }),
        ),
      );
      return csv;
    }

    it("sends exactly the list's filter and order, the person's zone and days, and saves under the server's name", async () => {
      serveScreen();
      const csv = serveExport({
        'Content-Disposition':
          "attachment; filename=operations_2026-03-01_2026-03-08.csv; filename*=UTF-8''op%C3%A9rations_2026-03-01_2026-03-08.csv",
      });
      const { user } = renderApp(
        '/transactions?subAccountId=sa_ops&status=%5B%22settled%22%2C%22refund%22%5D&from=%222026-03-01%22&to=%222026-03-08%22&sort=amount&by=card',
        { session: financeSession() },
      );
      await screen.findByRole('row', { name: /Coffee beans/ });
      await user.click(screen.getByRole('button', { name: 'Export CSV' }));
      await waitFor(() => expect(clicked).toHaveLength(1));
      const bounds = dayRangeToBounds('2026-03-01', '2026-03-08', ZONE);
      expect(queryOf(csv[0]?.url ?? '')).toEqual({
        subAccountId: 'sa_ops',
        status: ['settled', 'refund'],
        from: String(bounds.from),
        to: String(bounds.to),
        sort: 'amount',
        tz: ZONE,
        fromDay: '2026-03-01',
        toDay: '2026-03-08',
      });
      expect(csv[0]?.headers.get('x-csrf')).toBe('1');
      expect(clicked[0]?.download).toBe('opérations_2026-03-01_2026-03-08.csv');
      const blob = (createObjectURL.mock.calls[0] as unknown[] | undefined)?.[0] as Blob;
      expect(await blob.text()).toContain('tx_1');
    });

    it('without a name from the server, names the file after the sub account, or all of them', async () => {
      serveScreen();
      serveExport();
      const { user } = renderApp('/transactions?from=%222026-03-01%22&to=%222026-03-08%22', {
        session: financeSession(),
      });
      await screen.findByRole('row', { name: /Coffee beans/ });
      await user.click(screen.getByRole('button', { name: 'Export CSV' }));
      await waitFor(() => expect(clicked).toHaveLength(1));
      expect(clicked[0]?.download).toBe('all-sub-accounts_2026-03-01_2026-03-08.csv');
    });

    it('is unavailable, saying why, when no transaction matches', async () => {
      serveScreen({ rows: [] });
      const csv = serveExport();
      const { user } = renderApp('/transactions', { session: financeSession() });
      await screen.findByText('No transactions match these filters.');
      const button = screen.getByRole('button', { name: 'Export CSV' });
      expect(button).toHaveAttribute('aria-disabled', 'true');
      expect(button).toHaveAccessibleDescription(
        'Nothing to export: no transactions match these filters.',
      );
      await user.click(button);
      expect(csv).toHaveLength(0);
      expect(clicked).toHaveLength(0);
    });
  });

  it("corrects a link's values it cannot use, in place, and says which it left out", async () => {
    serveScreen();
    const { user, router, history } = renderApp(
      '/transactions?subAccountId=sa_ops&status=bogus&from=2026-02-30&pages=abc&cardId=card_1',
      { session: financeSession() },
    );
    const notice = await screen.findByText(/The link's status “bogus”/);
    await waitFor(() =>
      expect(router.state.location.search).toEqual({ subAccountId: 'sa_ops', cardId: 'card_1' }),
    );
    // Replaced, not added: Back does not return to the broken link.
    expect(history.length).toBe(1);
    expect(notice.closest('[role="status"]')).toHaveTextContent(
      [
        "The link's From date “2026-02-30” isn't a date; showing transactions from the earliest.",
        "The link's status “bogus” isn't a status; it was left out.",
        "The link's page count “abc” isn't a number of pages; showing the first page.",
      ].join(''),
    );
    // Only valid values were ever asked for; a plain card id is a list of one.
    for (const r of requestsTo(LIST)) expect(queryOf(r.url).status).toBeUndefined();
    expect(lastListQuery()).toEqual({ subAccountId: 'sa_ops', cardId: 'card_1' });
    // The notice is about the link: it goes with the person's next change.
    await user.selectOptions(screen.getByLabelText('Period'), 'today');
    await waitFor(() => expect(screen.queryByText(/The link's/)).not.toBeInTheDocument());
  });

  it('a link filtered by two cards names both, not the second by its id', async () => {
    serveScreen();
    const named = new Map([
      ['card_1', card()],
      ['card_2', card({ id: 'card_2', name: 'Design card', last4: '1111' })],
    ]);
    server.use(
      serve('cards.get', ({ params }) => {
        const found = named.get(String(params.id));
        return found ? HttpResponse.json(found) : apiError(404, 'not_found', 'No such card');
      }),
    );
    renderApp('/transactions?cardId=card_1&cardId=card_2', { session: financeSession() });
    expect(await screen.findByText('Card: Travel card')).toBeInTheDocument();
    expect(await screen.findByText('Card: Design card')).toBeInTheDocument();
    expect(screen.queryByText('Card: card_2')).not.toBeInTheDocument();
  });

  it('a link with its days in the wrong order shows every date, and says why', async () => {
    serveScreen();
    const { router } = renderApp('/transactions?from=%222026-03-09%22&to=%222026-03-08%22', {
      session: financeSession(),
    });
    expect(
      await screen.findByText(
        "The link's dates were in the wrong order (from 2026-03-09 to 2026-03-08); showing every date.",
      ),
    ).toBeInTheDocument();
    expect(router.state.location.search).toEqual({});
    expect(lastListQuery()).toEqual({});
  });

  it('says when nothing matches', async () => {
    serveScreen({ rows: [] });
    renderApp('/transactions', { session: financeSession() });
    expect(await screen.findByText('No transactions match these filters.')).toBeInTheDocument();
  });

  it('says when there are no sub accounts at all', async () => {
    serveScreen({ rows: [] });
    server.use(serve('subAccounts.list', () => HttpResponse.json({ items: [] })));
    renderApp('/transactions', { session: financeSession() });
    expect(await screen.findByText(/There are no sub accounts/)).toBeInTheDocument();
  });

  it('shows an error with its request id', async () => {
    serveScreen();
    server.use(
      serve('index.transactions', () =>
        apiError(400, 'invalid_query', 'cursor: is not a valid cursor'),
      ),
    );
    renderApp('/transactions', { session: financeSession() });
    expect(await screen.findByText('cursor: is not a valid cursor')).toBeInTheDocument();
    expect(screen.getByText('req-invalid_query')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Retry' })).toBeInTheDocument();
  });
});
