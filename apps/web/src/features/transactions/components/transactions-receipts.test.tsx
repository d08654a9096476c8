import { screen, waitFor, within } from '@testing-library/react';
import { HttpResponse } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { accountingCategories, financeSession, subAccounts } from '../../../test/fixtures';
import { renderApp } from '../../../test/render-app';
import {
  indexRow,
  listNotes,
  parseExportQuery,
  queryOf,
  serveIndex,
} from '../../../test/serve-index';
import { serveAttention } from '../../../test/serve-notes';
import { requestsTo, serve, server } from '../../../test/server';
import { inTimeZone } from '../../../test/time-zone';

inTimeZone('America/New_York');

const LIST = '/api/index/transactions';
const ZIP = '/api/index/transactions/receipts.zip';
const lastListQuery = () => queryOf(requestsTo(LIST).at(-1)?.url ?? 'http://x/');

/** Spend of $75 or more needs a receipt (the BFF's default): two of these still lack one. */
function rows() {
  return [
    indexRow({ amountCents: -12_000, notes: listNotes({ receipts: 2 }) }),
    indexRow({ id: 'tx_2', description: 'Hotel Berlin', amountCents: -48_000 }),
    indexRow({ id: 'tx_3', description: 'Taxi', amountCents: -7_500, status: 'pending' }),
    indexRow({ id: 'tx_4', description: 'Pens', amountCents: -900 }),
    indexRow({ id: 'tx_5', description: 'Blocked', amountCents: -20_000, status: 'declined' }),
  ];
}

let clicks: ReturnType<typeof vi.spyOn>;
beforeEach(() => {
  const list = rows();
  server.use(
    serve('subAccounts.list', () => HttpResponse.json({ items: subAccounts })),
    serve('accountingCategories.list', () => HttpResponse.json({ items: accountingCategories })),
  );
  serveIndex(list);
  serveAttention(list);
  Object.assign(URL, { createObjectURL: vi.fn(() => 'blob:zip'), revokeObjectURL: vi.fn() });
  clicks = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => undefined);
});
afterEach(() => clicks.mockRestore());

const shown = () =>
  screen
    .getAllByRole('row')
    .slice(1)
    .map((row) => row.querySelector('td.col-description a')?.textContent);

describe('transactions: receipts', { timeout: 15_000 }, () => {
  it('"Missing receipt" shows money moved of the counted size or more with none, with its count; pressed again, clears', async () => {
    const { user, router } = renderApp('/transactions?from=2026-03-01&to=2026-03-31&sort=amount', {
      session: financeSession(),
    });
    await screen.findByRole('row', { name: /Hotel Berlin/ });
    const presets = screen.getByRole('group', { name: 'Needs attention' });
    const preset = await within(presets).findByRole('button', { name: 'Missing receipt 2' });
    expect(preset).toHaveAttribute('aria-pressed', 'false');
    expect(preset).toHaveAttribute(
      'title',
      // Money moved either way counts (decision 0116: a refund or a transfer in too): "spent"
      // would say the count is of spend alone.
      expect.stringMatching(/^2 transactions moving \$75\.00 or more, in or out, with no receipt/),
    );

    await user.click(preset);
    await waitFor(() =>
      expect(router.state.location.search).toEqual({
        from: '2026-03-01',
        to: '2026-03-31',
        sort: 'amount',
        status: ['pending', 'settled', 'refund', 'dispute'],
        min: '75.00',
        receipt: 'missing',
      }),
    );
    expect(lastListQuery()).toMatchObject({
      status: ['pending', 'settled', 'refund', 'dispute'],
      minCents: '7500',
      receipt: 'missing',
    });
    await waitFor(() => expect(shown()).toEqual(['Hotel Berlin', 'Taxi']));
    expect(within(presets).getByRole('button', { name: 'Missing receipt 2' })).toHaveAttribute(
      'aria-pressed',
      'true',
    );
    expect(
      screen.getByRole('button', { name: 'Remove filter Receipt missing' }),
    ).toBeInTheDocument();

    await user.click(within(presets).getByRole('button', { name: 'Missing receipt 2' }));
    await waitFor(() =>
      expect(router.state.location.search).toEqual({
        from: '2026-03-01',
        to: '2026-03-31',
        sort: 'amount',
      }),
    );
  });

  it('filters by a receipt attached or missing: in the address, the query and a removable chip', async () => {
    const { user, router } = renderApp('/transactions', { session: financeSession() });
    await screen.findByRole('row', { name: /Hotel Berlin/ });
    await user.selectOptions(screen.getByLabelText('Receipt'), 'Attached');
    await waitFor(() => expect(router.state.location.search).toEqual({ receipt: 'attached' }));
    await waitFor(() => expect(shown()).toEqual(['Coffee beans']));
    expect(lastListQuery()).toEqual({ receipt: 'attached' });
    // Not the preset: no amount or status with it.
    expect(screen.getByRole('button', { name: /^Missing receipt/ })).toHaveAttribute(
      'aria-pressed',
      'false',
    );
    await user.click(screen.getByRole('button', { name: 'Remove filter Receipt attached' }));
    await waitFor(() => expect(router.state.location.search).toEqual({}));
    expect(screen.getByLabelText('Receipt')).toHaveValue('');
  });

  it('a link with a bad receipt value opens the list without that filter', async () => {
    const { router } = renderApp('/transactions?receipt=lost', { session: financeSession() });
    await screen.findByRole('row', { name: /Hotel Berlin/ });
    expect(router.state.location.search).toEqual({});
  });

  it("marks a row's receipts by their count, said in words", async () => {
    renderApp('/transactions', { session: financeSession() });
    const coffee = await screen.findByRole('row', { name: /Coffee beans/ });
    const notes = coffee.querySelector('td.col-notes') as HTMLElement;
    // The figure shown, then its words for assistive technology.
    expect(notes).toHaveTextContent(/^22 receipts$/);
    expect(within(notes).getByText('2 receipts')).toHaveClass('visually-hidden');
    expect(within(notes).getByTitle('2 receipts')).toBeInTheDocument();
    const hotel = screen.getByRole('row', { name: /Hotel Berlin/ });
    expect(hotel.querySelector('td.col-notes')).toHaveTextContent(/^—$/);
  });

  it('"Download receipts (ZIP)" asks for the receipts of exactly the filtered list, saved under the server\'s name', async () => {
    server.use(
      serve(
        'index.receiptsZip',
        () =>
          new HttpResponse(new Uint8Array([0x50, 0x4b, 0x05, 0x06]), {
            headers: {
              'Content-Type': 'application/zip',
              'Content-Disposition': 'attachment; filename="receipts_2026-03-01_2026-03-31.zip"',
            },
          }),
      ),
    );
    const { user } = renderApp(
      '/transactions?subAccountId=sa_ops&from=2026-03-01&to=2026-03-31&receipt=attached&sort=amount',
      { session: financeSession() },
    );
    await screen.findByRole('row', { name: /Coffee beans/ });
    const button = screen.getByRole('button', { name: 'Download receipts (ZIP)' });
    expect(button).toHaveAccessibleDescription(/receipts attached to these transactions/);
    await user.click(button);
    await waitFor(() => expect(clicks).toHaveBeenCalledTimes(1));
    const [asked] = requestsTo(ZIP);
    expect(asked?.headers.get('x-csrf')).toBe('1');
    expect(parseExportQuery(asked?.url ?? '')).toEqual({
      subAccountId: ['sa_ops'],
      from: Date.UTC(2026, 2, 1, 5),
      to: Date.UTC(2026, 3, 1, 4) - 1,
      receipt: 'attached',
      sort: 'amount',
      tz: 'America/New_York',
      fromDay: '2026-03-01',
      toDay: '2026-03-31',
    });
    const link = clicks.mock.contexts[0] as HTMLAnchorElement;
    expect(link.download).toBe('receipts_2026-03-01_2026-03-31.zip');
  });

  it('a period with more receipts than one ZIP holds: the refusal says so, with the counts, and nothing is saved', async () => {
    const detail =
      'These transactions have 812 receipts (1.4 GB); one ZIP holds at most 500 receipts and 1 GB. Narrow the period or the filters, and download the rest in another ZIP.';
    server.use(
      serve('index.receiptsZip', () =>
        HttpResponse.json(
          {
            type: '/problems/receipts_zip_too_large',
            title: 'Too many receipts for one ZIP',
            status: 422,
            detail,
            code: 'receipts_zip_too_large',
            requestId: 'req-zip',
            files: 812,
            bytes: 1_503_238_554,
            maxFiles: 500,
            maxBytes: 1_073_741_824,
          },
          { status: 422, headers: { 'Content-Type': 'application/problem+json' } },
        ),
      ),
    );
    const { user } = renderApp('/transactions?from=2026-03-01&to=2026-03-31', {
      session: financeSession(),
    });
    await screen.findByRole('row', { name: /Coffee beans/ });
    await user.click(screen.getByRole('button', { name: 'Download receipts (ZIP)' }));
    // The sentence as it is (no "Export failed:" before it): it says what to do.
    expect((await screen.findByRole('alert')).textContent).toBe(detail);
    expect(clicks).not.toHaveBeenCalled();
  });
});
