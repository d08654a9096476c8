import {
  type TransactionPage,
  transactionExportQuerySchema,
  transactionListQuerySchema,
} from '@card-console/shared/api/transactions';
import { dayRangeToBounds, localTimeZone } from '@card-console/shared/dates';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { card, financeSession, subAccounts, transaction } from '../../../test/fixtures';
import { renderApp } from '../../../test/render-app';
import { apiError, requestsTo, server } from '../../../test/server';
import { inTimeZone } from '../../../test/time-zone';

const ZONE = 'America/New_York';
inTimeZone(ZONE);

const pages: Record<string, TransactionPage> = {
  first: {
    items: [
      transaction(),
      transaction({
        id: 'tx_2',
        description: 'Refund for chairs',
        amountCents: 4_999,
        status: 'refund',
        merchant: undefined,
      }),
    ],
    nextCursor: 'n2',
  },
  n2: { items: [transaction({ id: 'tx_3', description: 'Train ticket' })] },
};

function serveTransactions(options: { empty?: boolean } = {}) {
  server.use(
    http.get('/api/sub-accounts', () => HttpResponse.json({ items: subAccounts })),
    http.get('/api/cards', () => HttpResponse.json({ items: [card()] })),
    http.get('/api/transactions', ({ request }) => {
      // The SPA must send exactly what the BFF accepts.
      const query = transactionListQuerySchema.parse(
        Object.fromEntries(new URL(request.url).searchParams),
      );
      if (options.empty) return HttpResponse.json<TransactionPage>({ items: [] });
      return HttpResponse.json(pages[query.cursor ?? 'first']);
    }),
    http.get('/api/transactions/:id', ({ params }) => {
      const all = Object.values(pages).flatMap((p) => p.items);
      const found = all.find((t) => t.id === params.id);
      return found ? HttpResponse.json(found) : apiError(404, 'not_found', 'No such transaction');
    }),
  );
}

const lastListQuery = () =>
  Object.fromEntries(
    new URL(requestsTo('/api/transactions').at(-1)?.url ?? 'http://x').searchParams,
  );

describe('transactions screen', () => {
  it('defaults to the first sub account, in the URL, and shows debits and credits distinctly', async () => {
    serveTransactions();
    const { router } = renderApp('/transactions', { session: financeSession() });
    const debit = await screen.findByRole('row', { name: /Coffee beans/ });
    expect(router.state.location.search).toMatchObject({ subAccountId: 'sa_ops' });
    expect(lastListQuery()).toEqual({ subAccountId: 'sa_ops' });
    // Asked for once, while the default went into the URL, not again after.
    expect(requestsTo('/api/transactions')).toHaveLength(1);
    expect(within(debit).getByText('Debit')).toBeInTheDocument();
    expect(within(debit).getByText(/−\$12\.50/)).toBeInTheDocument();
    expect(within(debit).getByText('BLUE BOTTLE SF')).toBeInTheDocument();
    // The paying card by name and last four, as the BFF joined it: no card list is walked.
    expect(within(debit).getByRole('link', { name: 'Travel card •••• 4242' })).toHaveAttribute(
      'href',
      '/cards/card_1',
    );
    expect(requestsTo('/api/cards')).toHaveLength(0);
    const credit = screen.getByRole('row', { name: /Refund for chairs/ });
    expect(within(credit).getByText('Credit')).toBeInTheDocument();
    expect(within(credit).getByText(/\+\$49\.99/)).toBeInTheDocument();
    expect(within(debit).getByText('Debit').parentElement).toHaveClass('debit');
    expect(within(credit).getByText('Credit').parentElement).toHaveClass('credit');
    // Dates are shown in the person's zone (15:30 UTC is 10:30 in New York), compact (the
    // year only when it is not this one: lib/format's tests), in full in the tooltip.
    const date = within(debit).getByText(/10:30/);
    expect(date).toHaveTextContent(/^Mar 5(, 2026)?, 10:30\sAM$/);
    expect(date).toHaveAttribute('datetime', '2026-03-05T15:30:00.000Z');
    expect(date.getAttribute('title')).toMatch(/2026/);
    // The screen and its scrolling table are two landmarks with two names.
    expect(screen.getAllByRole('region', { name: 'Transactions' })).toHaveLength(1);
    expect(screen.getByRole('region', { name: 'Transactions table' })).toContainElement(debit);
  });

  it('names the card that paid on every row: by name and last four, else by id, else "—"', async () => {
    serveTransactions();
    const long = 'Ava Patel (travel) '.concat('x'.repeat(100));
    server.use(
      http.get('/api/transactions', () =>
        HttpResponse.json<TransactionPage>({
          items: [
            transaction({ id: 'tx_a', description: 'Named', card: { name: long, last4: '1881' } }),
            transaction({
              id: 'tx_b',
              description: 'Unnamed',
              cardId: 'card_gone',
              card: undefined,
            }),
            transaction({ id: 'tx_c', description: 'No card', cardId: undefined, card: undefined }),
          ],
        }),
      ),
    );
    renderApp('/transactions?subAccountId=sa_ops', { session: financeSession() });
    const named = await screen.findByRole('row', { name: /Named/ });
    // The whole name in the link's name and tooltip, however the cell cuts it.
    const link = within(named).getByRole('link', { name: `${long} •••• 1881` });
    expect(link).toHaveAttribute('title', `${long} •••• 1881`);
    expect(link).toHaveAttribute('href', '/cards/card_1');
    const unnamed = screen.getByRole('row', { name: /Unnamed/ });
    expect(within(unnamed).getByRole('link', { name: 'card_gone' })).toHaveAttribute(
      'href',
      '/cards/card_gone',
    );
    const none = screen.getByRole('row', { name: /No card/ });
    expect(none.querySelector('.col-card')).toHaveTextContent(/^—$/);
    expect(
      within(none)
        .getAllByRole('link')
        .map((a) => a.textContent),
    ).toEqual(['No card']);
    expect(requestsTo('/api/cards')).toHaveLength(0);
  });

  it("sends the chosen days as inclusive Unix-ms bounds in the person's time zone", async () => {
    serveTransactions();
    expect(localTimeZone()).toBe(ZONE);
    const { router } = renderApp('/transactions?subAccountId=sa_mkt', {
      session: financeSession(),
    });
    await screen.findByRole('row', { name: /Coffee beans/ });
    fireEvent.change(screen.getByLabelText('From'), { target: { value: '2026-03-01' } });
    await waitFor(() => expect(router.state.location.search).toMatchObject({ from: '2026-03-01' }));
    fireEvent.change(screen.getByLabelText('To'), { target: { value: '2026-03-08' } });
    // 8 March 2026 is the day New York moves its clocks forward: a 23-hour day.
    const expected = dayRangeToBounds('2026-03-01', '2026-03-08', ZONE);
    await waitFor(() =>
      expect(lastListQuery()).toEqual({
        subAccountId: 'sa_mkt',
        from: String(expected.from),
        to: String(expected.to),
      }),
    );
    expect((expected.to ?? 0) - (expected.from ?? 0) + 1).toBe((8 * 24 - 1) * 3_600_000);
    expect(router.state.location.search).toMatchObject({ from: '2026-03-01', to: '2026-03-08' });
  });

  it('keeps a From after the To as typed, names what to change, and applies nothing until it is fixed', async () => {
    serveTransactions();
    const { router } = renderApp('/transactions?subAccountId=sa_ops&to=%222026-03-08%22', {
      session: financeSession(),
    });
    await screen.findByRole('row', { name: /Coffee beans/ });
    const before = requestsTo('/api/transactions').length;
    fireEvent.change(screen.getByLabelText('From'), { target: { value: '2026-03-09' } });
    expect(screen.getByRole('alert')).toHaveTextContent(
      'From (Mar 9, 2026) is after To (Mar 8, 2026). Choose a From on or before Mar 8, 2026',
    );
    expect(screen.getByLabelText('From')).toHaveValue('2026-03-09');
    expect(screen.getByLabelText('From')).toHaveAttribute('aria-invalid', 'true');
    expect(screen.getByLabelText('To')).toHaveValue('2026-03-08');
    expect(requestsTo('/api/transactions')).toHaveLength(before);
    expect(router.state.location.search).toEqual({ subAccountId: 'sa_ops', to: '2026-03-08' });

    // A later To makes the range whole: both apply, and the message goes.
    fireEvent.change(screen.getByLabelText('To'), { target: { value: '2026-03-10' } });
    await waitFor(() =>
      expect(router.state.location.search).toEqual({
        subAccountId: 'sa_ops',
        from: '2026-03-09',
        to: '2026-03-10',
      }),
    );
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(screen.getByLabelText('From')).not.toHaveAttribute('aria-invalid');
  });

  it('filters by status and card, and a filter change starts again at page 1', async () => {
    serveTransactions();
    const { user, router } = renderApp('/transactions?subAccountId=sa_ops', {
      session: financeSession(),
    });
    await screen.findByRole('row', { name: /Coffee beans/ });
    await user.click(screen.getByRole('button', { name: 'Load more' }));
    await screen.findByRole('row', { name: /Train ticket/ });
    expect(router.state.location.search).toEqual({ subAccountId: 'sa_ops', pages: 2 });
    await user.selectOptions(screen.getByLabelText('Status'), 'settled');
    await waitFor(() =>
      expect(router.state.location.search).toEqual({ subAccountId: 'sa_ops', status: 'settled' }),
    );
    expect(requestsTo('/api/cards')).toHaveLength(0);
    // Opening the card filter loads the choices.
    await user.click(screen.getByLabelText('Card'));
    await screen.findByRole('option', { name: 'Travel card (•••• 4242)' });
    expect(requestsTo('/api/cards')).toHaveLength(1);
    await user.selectOptions(screen.getByLabelText('Card'), 'card_1');
    await screen.findByRole('row', { name: /Coffee beans/ });
    await waitFor(() =>
      expect(lastListQuery()).toEqual({
        subAccountId: 'sa_ops',
        status: 'settled',
        cardId: 'card_1',
      }),
    );
    expect(router.state.location.search).toEqual({
      subAccountId: 'sa_ops',
      status: 'settled',
      cardId: 'card_1',
    });
  });

  it('a view filtered by one card asks for that card only, and names it in the filter', async () => {
    serveTransactions();
    server.use(http.get('/api/cards/:id', () => HttpResponse.json(card())));
    renderApp('/transactions?subAccountId=sa_ops&cardId=card_1', { session: financeSession() });
    await screen.findByRole('row', { name: /Coffee beans/ });
    const filter = screen.getByLabelText('Card');
    await waitFor(() => expect(filter).toHaveDisplayValue('Travel card (•••• 4242)'));
    expect(requestsTo('/api/cards/card_1')).toHaveLength(1);
    expect(requestsTo('/api/cards')).toHaveLength(0);
    // Only the selected card is offered until the full list is asked for.
    expect(
      within(filter)
        .getAllByRole('option')
        .map((o) => o.textContent),
    ).toEqual(['All cards', 'Travel card (•••• 4242)']);
  });

  it('says so in the card filter when the choices cannot be loaded', async () => {
    serveTransactions();
    server.use(http.get('/api/cards', () => apiError(502, 'upstream_error', 'down')));
    const { user } = renderApp('/transactions?subAccountId=sa_ops', { session: financeSession() });
    await screen.findByRole('row', { name: /Coffee beans/ });
    await user.click(screen.getByLabelText('Card'));
    const filter = screen.getByLabelText('Card');
    expect(await within(filter).findByText('Cards could not be loaded')).toBeDisabled();
    // Only in the card filter: the sub-account choices stay what they are.
    expect(
      within(screen.getByLabelText('Sub account')).queryByText(/cards/i),
    ).not.toBeInTheDocument();
    // The list itself is unaffected.
    expect(screen.getByRole('row', { name: /Coffee beans/ })).toBeInTheDocument();
  });

  it('opens a transaction with every detail, and goes back to the same list', async () => {
    serveTransactions();
    const { user, router } = renderApp('/transactions?subAccountId=sa_ops&status=settled', {
      session: financeSession(),
    });
    await user.click(await screen.findByRole('link', { name: 'Coffee beans' }));
    expect(await screen.findByRole('heading', { name: 'Coffee beans' })).toBeInTheDocument();
    for (const text of ['BLUE BOTTLE SF', 'REF-0001', '1.087', 'tx_1']) {
      expect(screen.getByText(text)).toBeInTheDocument();
    }
    // The category by name with its code; the original amount as money in its currency.
    expect(screen.getByText('Fast Food Restaurants (5814)')).toBeInTheDocument();
    expect(screen.getByText('€11.50 (EUR)')).toBeInTheDocument();
    expect(screen.getByText('Debit')).toBeInTheDocument();
    // The card by name and last four, linking to it, rather than its id.
    expect(screen.getByRole('link', { name: 'Travel card •••• 4242' })).toHaveAttribute(
      'href',
      '/cards/card_1',
    );
    expect(screen.queryByText('card_1')).not.toBeInTheDocument();
    // A transaction without a decline reason has no such line, not a "—".
    expect(screen.queryByText('Decline reason')).not.toBeInTheDocument();
    expect(screen.queryByText('—')).not.toBeInTheDocument();
    await user.click(screen.getByRole('link', { name: '← Back to transactions' }));
    await screen.findByRole('heading', { name: 'Transactions' });
    expect(router.state.location.search).toEqual({ subAccountId: 'sa_ops', status: 'settled' });
  });

  it('shows the decline reason of a declined transaction', async () => {
    serveTransactions();
    server.use(
      http.get('/api/transactions/:id', () =>
        HttpResponse.json(transaction({ status: 'declined', declineReason: 'Card paused' })),
      ),
    );
    renderApp('/transactions/tx_1', { session: financeSession() });
    expect(await screen.findByText('Card paused')).toBeInTheDocument();
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
        http.get('/api/transactions/export.csv', ({ request }) => {
          transactionExportQuerySchema.parse(Object.fromEntries(new URL(request.url).searchParams));
          csv.push(request);
          return new HttpResponse(body, {
            headers: { 'Content-Type': 'text/csv', 'X-Request-Id': 'req-export-1', ...headers },
          });
        }),
        http.get('/api/transactions/export-receipts/req-export-1', () =>
          HttpResponse.json({ rows: 1, bytes: body.length }),
        ),
      );
      return csv;
    }

    it("sends the filter, the person's zone and days, and saves under the server's file name", async () => {
      serveTransactions();
      const csv = serveExport({
        'Content-Disposition':
          "attachment; filename=operations_2026-03-01_2026-03-08.csv; filename*=UTF-8''op%C3%A9rations_2026-03-01_2026-03-08.csv",
      });
      const { user } = renderApp(
        '/transactions?subAccountId=sa_ops&status=settled&from=%222026-03-01%22&to=%222026-03-08%22',
        { session: financeSession() },
      );
      await screen.findByRole('row', { name: /Coffee beans/ });
      await user.click(screen.getByRole('button', { name: 'Export CSV' }));
      await waitFor(() => expect(clicked).toHaveLength(1));
      const bounds = dayRangeToBounds('2026-03-01', '2026-03-08', ZONE);
      expect(Object.fromEntries(new URL(csv[0]?.url ?? '').searchParams)).toEqual({
        subAccountId: 'sa_ops',
        status: 'settled',
        from: String(bounds.from),
        to: String(bounds.to),
        tz: ZONE,
        fromDay: '2026-03-01',
        toDay: '2026-03-08',
      });
      expect(csv[0]?.headers.get('x-csrf')).toBe('1');
      // The UTF-8 name (RFC 6266's filename*) wins over the plain one.
      expect(clicked[0]?.download).toBe('opérations_2026-03-01_2026-03-08.csv');
      expect(clicked[0]?.href).toBe('blob:mock');
      const blob = (createObjectURL.mock.calls[0] as unknown[] | undefined)?.[0] as Blob;
      expect(await blob.text()).toContain('tx_1');
    });

    it('without a name from the server, names the file after the sub account and the days', async () => {
      serveTransactions();
      serveExport();
      const { user } = renderApp(
        '/transactions?subAccountId=sa_mkt&from=%222026-03-01%22&to=%222026-03-08%22',
        { session: financeSession() },
      );
      await screen.findByRole('row', { name: /Coffee beans/ });
      await user.click(screen.getByRole('button', { name: 'Export CSV' }));
      await waitFor(() => expect(clicked).toHaveLength(1));
      expect(clicked[0]?.download).toBe('marketing_2026-03-01_2026-03-08.csv');
    });

    it('is unavailable, saying why, when no transaction matches', async () => {
      serveTransactions({ empty: true });
      const csv = serveExport();
      const { user } = renderApp('/transactions?subAccountId=sa_ops', {
        session: financeSession(),
      });
      await screen.findByText('No transactions match these filters.');
      const button = screen.getByRole('button', { name: 'Export CSV' });
      expect(button).toHaveAttribute('aria-disabled', 'true');
      expect(button).toHaveAccessibleDescription(
        'Nothing to export: no transactions match these filters.',
      );
      expect(button).toHaveAttribute('title', expect.stringMatching(/^Nothing to export/));
      await user.click(button);
      expect(csv).toHaveLength(0);
      expect(clicked).toHaveLength(0);
    });
  });

  it("corrects a link's values it cannot use, in place, and says which it left out", async () => {
    serveTransactions();
    server.use(http.get('/api/cards/:id', () => HttpResponse.json(card())));
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
        "The link's status “bogus” isn't a status; showing all statuses.",
        "The link's page count “abc” isn't a number of pages; showing the first page.",
      ].join(''),
    );
    // Only valid values were ever asked for.
    for (const r of requestsTo('/api/transactions')) {
      expect(new URL(r.url).searchParams.get('status')).toBeNull();
    }
    // The notice is about the link: it goes with the person's next change.
    await user.selectOptions(screen.getByLabelText('Status'), 'settled');
    await waitFor(() => expect(screen.queryByText(/The link's/)).not.toBeInTheDocument());
  });

  it('a link with its days in the wrong order shows every date, and says why', async () => {
    serveTransactions();
    const { router } = renderApp(
      '/transactions?subAccountId=sa_ops&from=%222026-03-09%22&to=%222026-03-08%22',
      { session: financeSession() },
    );
    expect(
      await screen.findByText(
        "The link's dates were in the wrong order (from 2026-03-09 to 2026-03-08); showing every date.",
      ),
    ).toBeInTheDocument();
    expect(router.state.location.search).toEqual({ subAccountId: 'sa_ops' });
    expect(lastListQuery()).toEqual({ subAccountId: 'sa_ops' });
  });

  it('says when nothing matches', async () => {
    serveTransactions({ empty: true });
    renderApp('/transactions?subAccountId=sa_ops', { session: financeSession() });
    expect(await screen.findByText('No transactions match these filters.')).toBeInTheDocument();
  });

  it('says when there are no sub accounts at all', async () => {
    serveTransactions();
    server.use(http.get('/api/sub-accounts', () => HttpResponse.json({ items: [] })));
    renderApp('/transactions', { session: financeSession() });
    expect(await screen.findByText(/There are no sub accounts/)).toBeInTheDocument();
  });

  it('shows an error with its request id', async () => {
    serveTransactions();
    server.use(
      http.get('/api/transactions', () =>
        apiError(400, 'invalid_query', 'cursor: is not a valid cursor'),
      ),
    );
    renderApp('/transactions?subAccountId=sa_ops', { session: financeSession() });
    expect(await screen.findByText('cursor: is not a valid cursor')).toBeInTheDocument();
    expect(screen.getByText('req-invalid_query')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Retry' })).toBeInTheDocument();
  });
});
