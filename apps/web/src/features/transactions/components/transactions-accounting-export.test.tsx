import { screen, waitFor } from '@testing-library/react';
import { HttpResponse } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { financeSession, subAccounts } from '../../../test/fixtures';
import { renderApp } from '../../../test/render-app';
import { indexRow, listNotes, parseExportQuery, serveIndex } from '../../../test/serve-index';
import { apiError, requestsTo, serve, server } from '../../../test/server';
import { inTimeZone } from '../../../test/time-zone';

inTimeZone('America/New_York');

const EXPORT = '/api/index/transactions/export.csv';
const TOTALS = '/api/index/transactions/totals';
const QUICKBOOKS = 'Date,Description,Amount\r\n03/05/2026,BLUE BOTTLE SF,-12.50\r\n';

let createObjectURL: ReturnType<typeof vi.fn>;
let clicks: ReturnType<typeof vi.spyOn>;
beforeEach(() => {
  server.use(
    serve('subAccounts.list', () => HttpResponse.json({ items: subAccounts })),
    serve(
      'index.exportCsv',
      () =>
        new HttpResponse(QUICKBOOKS, {
          headers: {
            'Content-Type': 'text/csv',
            'X-Request-Id': 'req-qb',
            'Content-Disposition':
              'attachment; filename="operations-quickbooks_2026-03-01_2026-03-31.csv"',
          },
        }),
    ),
    serve('transactions.exportReceipt', { requestId: 'req-qb' }, () =>
      HttpResponse.json({ rows: 1, bytes: new TextEncoder().encode(QUICKBOOKS).length }),
    ),
  );
  serveIndex([
    indexRow({
      notes: listNotes({ memo: '', categoryId: 'cat_meals', tags: ['trip'], reviewed: true }),
    }),
  ]);
  createObjectURL = vi.fn(() => 'blob:mock');
  Object.assign(URL, { createObjectURL, revokeObjectURL: vi.fn() });
  clicks = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => undefined);
});
afterEach(() => clicks.mockRestore());

describe("the accountants' exports", { timeout: 15_000 }, () => {
  it.each([
    [
      'QuickBooks journal entries',
      'quickbooks-journal',
      /Journal entries: each posted row booked to its accounting category/,
    ],
    ['QuickBooks bank CSV', 'quickbooks', /bank upload \(Date, Description, Amount\): no category/],
    ['Xero CSV (precoded)', 'xero', /Import a statement: each posted row with its account code/],
  ] as const)(
    '"%s" downloads the list shown, its filters and all, in that format',
    async (label, format, about) => {
      const { user } = renderApp(
        '/transactions?subAccountId=sa_ops&from=2026-03-01&to=2026-03-31&review=reviewed&account=cat_meals&tag=Trip&sort=amount',
        { session: financeSession() },
      );
      await screen.findByRole('row', { name: /Coffee beans/ });
      const button = screen.getByRole('button', { name: label });
      expect(button).toHaveAccessibleDescription(about);
      await user.click(button);
      await waitFor(() => expect(clicks).toHaveBeenCalledTimes(1));
      const [asked] = requestsTo(EXPORT);
      expect(parseExportQuery(asked?.url ?? '')).toEqual({
        subAccountId: ['sa_ops'],
        from: Date.UTC(2026, 2, 1, 5),
        to: Date.UTC(2026, 3, 1, 4) - 1,
        review: 'reviewed',
        account: ['cat_meals'],
        tag: ['Trip'],
        sort: 'amount',
        tz: 'America/New_York',
        fromDay: '2026-03-01',
        toDay: '2026-03-31',
        format,
      });
      // Saved under the server's name.
      const link = clicks.mock.contexts[0] as HTMLAnchorElement;
      expect(link.download).toBe('operations-quickbooks_2026-03-01_2026-03-31.csv');
      // The other two stay ready.
      expect(screen.getByRole('button', { name: 'Export CSV' })).not.toHaveAttribute(
        'aria-disabled',
      );
    },
  );

  it("Export CSV still asks for Card Console's own columns (no format)", async () => {
    const { user } = renderApp('/transactions?subAccountId=sa_ops', { session: financeSession() });
    await screen.findByRole('row', { name: /Coffee beans/ });
    await user.click(screen.getByRole('button', { name: 'Export CSV' }));
    await waitFor(() => expect(clicks).toHaveBeenCalledTimes(1));
    expect(new URL(requestsTo(EXPORT)[0]?.url ?? '').searchParams.has('format')).toBe(false);
  });

  it('with nothing to export, each says why and asks for nothing', async () => {
    const { user } = renderApp('/transactions?review=unreviewed', { session: financeSession() });
    await screen.findByText('No transactions match these filters.');
    for (const label of [
      'Export CSV',
      'QuickBooks journal entries',
      'QuickBooks bank CSV',
      'Xero CSV (precoded)',
    ]) {
      const button = screen.getByRole('button', { name: label });
      expect(button).toHaveAttribute('aria-disabled', 'true');
      expect(button).toHaveAccessibleDescription(/^Nothing to export/);
      await user.click(button);
    }
    expect(requestsTo(EXPORT)).toHaveLength(0);
  });

  it('shows beside the files the posted total they net to: settled, refunded and disputed rows only', async () => {
    serveIndex([
      indexRow({ id: 'tx_settled', amountCents: -1_250 }),
      indexRow({ id: 'tx_refund', status: 'refund', amountCents: 500, description: 'Refund' }),
      indexRow({
        id: 'tx_dispute',
        status: 'dispute',
        amountCents: -4_000,
        description: 'Disputed',
      }),
      indexRow({ id: 'tx_pending', status: 'pending', amountCents: -999, description: 'Pending' }),
      indexRow({
        id: 'tx_declined',
        status: 'declined',
        amountCents: -72_882,
        description: 'PAYPAL *NORTHSIDE FUEL',
      }),
      indexRow({
        id: 'tx_funding',
        status: 'failed',
        amountCents: 10_640_000,
        description: 'Funding',
        cardId: undefined,
        card: undefined,
      }),
    ]);
    const { user } = renderApp('/transactions?subAccountId=sa_ops', { session: financeSession() });
    await screen.findByRole('row', { name: /PAYPAL/ });
    await user.click(screen.getByText('More formats'));
    // By hand from docs/money.md: -12.50 + 5.00 - 40.00 = -47.50 over 3 rows.
    expect(await screen.findByText('Posted: -$47.50')).toBeVisible();
    expect(screen.getByText(/in 3 rows/)).toBeVisible();
    expect(screen.getByText(/net to this total/)).toHaveTextContent(/Pending, declined/);
    expect(screen.queryByRole('note')).toBeNull();
  });

  it('with nothing posted, the accounting files say why and ask for nothing', async () => {
    serveIndex([
      indexRow({ id: 'tx_declined', status: 'declined', amountCents: -72_882 }),
      indexRow({ id: 'tx_pending', status: 'pending', amountCents: -999 }),
    ]);
    const { user } = renderApp('/transactions?subAccountId=sa_ops', { session: financeSession() });
    await screen.findAllByRole('row', { name: /Coffee beans/ });
    await user.click(screen.getByText('More formats'));
    expect(await screen.findByText('Posted: $0.00')).toBeVisible();
    for (const label of [
      'QuickBooks journal entries',
      'QuickBooks bank CSV',
      'Xero CSV (precoded)',
    ]) {
      const button = screen.getByRole('button', { name: label });
      expect(button).toHaveAttribute('aria-disabled', 'true');
      expect(button).toHaveAccessibleDescription(/none of these transactions posted/);
      await user.click(button);
    }
    expect(requestsTo(EXPORT)).toHaveLength(0);
    expect(screen.getByRole('button', { name: 'Export CSV' })).not.toHaveAttribute('aria-disabled');
  });

  it("past an importer's rows a file, says so and offers its file in parts, each asking for its part", async () => {
    serveIndex(
      Array.from({ length: 1_000 }, (_, i) =>
        indexRow({ id: `tx_${i}`, amountCents: -100, referenceNumber: `REF-${i}` }),
      ),
    );
    const { user } = renderApp('/transactions?subAccountId=sa_ops', { session: financeSession() });
    await screen.findAllByRole('row', { name: /Coffee beans/ });
    await user.click(screen.getByText('More formats'));
    expect(await screen.findByText('Posted: -$1,000.00')).toBeVisible();
    // 1,000 rows: over QuickBooks' 999 (1,000 lines with the header), within Xero's 1,000.
    expect(screen.getByRole('note')).toHaveTextContent(
      "QuickBooks' bank upload takes 999 rows a file at most: its file comes in parts",
    );
    expect(screen.queryByRole('button', { name: 'QuickBooks bank CSV' })).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Xero CSV (precoded)' })).toBeInTheDocument();
    const second = screen.getByRole('button', {
      name: 'QuickBooks bank CSV, part 2 of 2 (rows 1,000–1,000)',
    });
    expect(
      screen.getByRole('button', { name: 'QuickBooks bank CSV, part 1 of 2 (rows 1–999)' }),
    ).toBeInTheDocument();
    await user.click(second);
    await waitFor(() => expect(clicks).toHaveBeenCalledTimes(1));
    const [asked] = requestsTo(EXPORT);
    // With the posted set the parts were planned from, as shown: the BFF refuses the part if
    // that set changed since (a row synced between two parts would move every later one).
    expect(parseExportQuery(asked?.url ?? '')).toMatchObject({
      format: 'quickbooks',
      part: 2,
      postedRows: 1_000,
      postedCents: -100_000,
    });
    await user.click(screen.getByRole('button', { name: 'Xero CSV (precoded)' }));
    await waitFor(() => expect(requestsTo(EXPORT)).toHaveLength(2));
    // A single file is not planned from the figures: it carries none.
    const single = new URL(requestsTo(EXPORT)[1]?.url ?? '').searchParams;
    expect([single.get('format'), single.has('part'), single.has('postedRows')]).toEqual([
      'xero',
      false,
      false,
    ]);
    expect(single.has('postedCents')).toBe(false);
  });

  it('a part refused because the posted rows changed says so, saves nothing and offers the parts of the figures as they are now', async () => {
    const rows = (n: number) =>
      Array.from({ length: n }, (_, i) => indexRow({ id: `tx_${i}`, amountCents: -100 }));
    serveIndex(rows(1_000));
    server.use(
      serve('index.exportCsv', () =>
        apiError(
          409,
          'matching_changed',
          'The posted rows changed since the parts were offered: 1,000 rows, -$1,000.00 then; 1,001 rows, -$1,042.42 now. Download every part again, in place of any part imported already.',
        ),
      ),
    );
    const { user } = renderApp('/transactions?subAccountId=sa_ops', { session: financeSession() });
    await screen.findAllByRole('row', { name: /Coffee beans/ });
    await user.click(screen.getByText('More formats'));
    expect(await screen.findByText('Posted: -$1,000.00')).toBeVisible();
    // A sync meanwhile: the index now has one more posted row.
    serveIndex([...rows(1_000), indexRow({ id: 'tx_new', amountCents: -4_242 })]);
    const totalsAsked = requestsTo(TOTALS).length;
    await user.click(
      screen.getByRole('button', { name: 'QuickBooks bank CSV, part 1 of 2 (rows 1–999)' }),
    );
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'The posted rows changed since the parts were offered: 1,000 rows, -$1,000.00 then; 1,001 rows, -$1,042.42 now. Download every part again',
    );
    expect(clicks).not.toHaveBeenCalled();
    // The figures asked again, and the parts offered are theirs.
    expect(await screen.findByText('Posted: -$1,042.42')).toBeVisible();
    expect(requestsTo(TOTALS).length).toBeGreaterThan(totalsAsked);
    expect(
      screen.getByRole('button', { name: 'QuickBooks bank CSV, part 2 of 2 (rows 1,000–1,001)' }),
    ).toBeInTheDocument();
    expect(
      screen.getByRole('button', { name: 'Xero CSV (precoded), part 2 of 2 (rows 1,001–1,001)' }),
    ).toBeInTheDocument();
    expect(parseExportQuery(requestsTo(EXPORT)[0]?.url ?? '')).toMatchObject({
      part: 1,
      postedRows: 1_000,
      postedCents: -100_000,
    });
  });
});
