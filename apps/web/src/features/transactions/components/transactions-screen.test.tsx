import {
  type TransactionPage,
  transactionExportQuerySchema,
  transactionListQuerySchema,
} from '@card-console/shared/api/transactions';
import { dayRangeToBounds, localTimeZone } from '@card-console/shared/dates';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { card, financeSession, subAccounts, transaction } from '../../../test/fixtures';
import { renderApp } from '../../../test/render-app';
import { apiError, requestsTo, server } from '../../../test/server';

const ZONE = 'America/New_York';
let previousTz: string | undefined;
beforeEach(() => {
  previousTz = process.env.TZ;
  process.env.TZ = ZONE;
});
afterEach(() => {
  process.env.TZ = previousTz;
});

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
    // The card list is not walked for a first load: the row links to its card instead.
    expect(within(debit).getByRole('link', { name: 'View card card_1' })).toHaveAttribute(
      'href',
      '/cards/card_1',
    );
    expect(requestsTo('/api/cards')).toHaveLength(0);
    const credit = screen.getByRole('row', { name: /Refund for chairs/ });
    expect(within(credit).getByText('Credit')).toBeInTheDocument();
    expect(within(credit).getByText(/\+\$49\.99/)).toBeInTheDocument();
    expect(within(debit).getByText('Debit').parentElement).toHaveClass('debit');
    expect(within(credit).getByText('Credit').parentElement).toHaveClass('credit');
    // Dates are shown in the person's zone: 15:30 UTC is 10:30 in New York.
    expect(within(debit).getByText(/10:30/)).toBeInTheDocument();
    // The screen and its scrolling table are two landmarks with two names.
    expect(screen.getAllByRole('region', { name: 'Transactions' })).toHaveLength(1);
    expect(screen.getByRole('region', { name: 'Transactions table' })).toContainElement(debit);
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

  it('refuses a start date after the end date', async () => {
    serveTransactions();
    renderApp('/transactions?subAccountId=sa_ops&to=%222026-03-08%22', {
      session: financeSession(),
    });
    await screen.findByRole('row', { name: /Coffee beans/ });
    const before = requestsTo('/api/transactions').length;
    fireEvent.change(screen.getByLabelText('From'), { target: { value: '2026-03-09' } });
    expect(screen.getByRole('alert')).toHaveTextContent('must not be after the end date');
    expect(requestsTo('/api/transactions')).toHaveLength(before);
  });

  it('filters by status and card, and a filter change starts again at page 1', async () => {
    serveTransactions();
    const { user, router } = renderApp('/transactions?subAccountId=sa_ops', {
      session: financeSession(),
    });
    await screen.findByRole('row', { name: /Coffee beans/ });
    await user.click(screen.getByRole('button', { name: 'Next page' }));
    await screen.findByRole('row', { name: /Train ticket/ });
    await user.selectOptions(screen.getByLabelText('Status'), 'settled');
    expect(requestsTo('/api/cards')).toHaveLength(0);
    // Opening the card filter loads the choices; the rows then name their cards.
    await user.click(screen.getByLabelText('Card'));
    await screen.findByRole('option', { name: 'Travel card (•••• 4242)' });
    expect(requestsTo('/api/cards')).toHaveLength(1);
    expect(
      within(screen.getByRole('row', { name: /Coffee beans/ })).getByText('Travel card •••• 4242'),
    ).toBeInTheDocument();
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

  it('pages forward and Back returns to the previous page', async () => {
    serveTransactions();
    const { user, history } = renderApp('/transactions?subAccountId=sa_ops', {
      session: financeSession(),
    });
    await screen.findByRole('row', { name: /Coffee beans/ });
    await user.click(screen.getByRole('button', { name: 'Next page' }));
    expect(await screen.findByRole('row', { name: /Train ticket/ })).toBeInTheDocument();
    expect(lastListQuery()).toEqual({ subAccountId: 'sa_ops', cursor: 'n2' });
    act(() => history.back());
    expect(await screen.findByRole('row', { name: /Coffee beans/ })).toBeInTheDocument();
    expect(screen.getByText('Page 1')).toBeInTheDocument();
  });

  it('opens a transaction with every detail, and goes back to the same list', async () => {
    serveTransactions();
    const { user, router } = renderApp('/transactions?subAccountId=sa_ops&status=settled', {
      session: financeSession(),
    });
    await user.click(await screen.findByRole('link', { name: 'Coffee beans' }));
    expect(await screen.findByRole('heading', { name: 'Coffee beans' })).toBeInTheDocument();
    for (const text of ['BLUE BOTTLE SF', '5814', 'REF-0001', '1.087', 'tx_1']) {
      expect(screen.getByText(text)).toBeInTheDocument();
    }
    expect(screen.getByText(/EUR 11\.50/)).toBeInTheDocument();
    expect(screen.getByText('Debit')).toBeInTheDocument();
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

  it('exports the current filter as CSV with the CSRF header', async () => {
    serveTransactions();
    const csv: Request[] = [];
    server.use(
      http.get('/api/transactions/export.csv', ({ request }) => {
        transactionExportQuerySchema.parse(Object.fromEntries(new URL(request.url).searchParams));
        csv.push(request);
        return new HttpResponse('id,date\ntx_1,2026-03-05\n', {
          headers: { 'Content-Type': 'text/csv', 'X-Request-Id': 'req-export-1' },
        });
      }),
      http.get('/api/transactions/export-receipts/req-export-1', () =>
        HttpResponse.json({ rows: 1, bytes: 24 }),
      ),
    );
    const createObjectURL = vi.fn(() => 'blob:mock');
    const revokeObjectURL = vi.fn();
    Object.assign(URL, { createObjectURL, revokeObjectURL });
    const clicked: HTMLAnchorElement[] = [];
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (
      this: HTMLAnchorElement,
    ) {
      clicked.push(this);
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
    });
    expect(csv[0]?.headers.get('x-csrf')).toBe('1');
    expect(clicked[0]?.download).toBe('transactions-sa_ops-2026-03-01-2026-03-08.csv');
    expect(clicked[0]?.href).toBe('blob:mock');
    const blob = (createObjectURL.mock.calls[0] as unknown[] | undefined)?.[0] as Blob;
    expect(await blob.text()).toContain('tx_1');
    click.mockRestore();
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
