import { screen, waitFor } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { financeSession, subAccounts } from '../../../test/fixtures';
import { renderApp } from '../../../test/render-app';
import { indexRow, listNotes, parseExportQuery, serveIndex } from '../../../test/serve-index';
import { requestsTo, server } from '../../../test/server';
import { inTimeZone } from '../../../test/time-zone';

inTimeZone('America/New_York');

const EXPORT = '/api/index/transactions/export.csv';
const QUICKBOOKS = 'Date,Description,Amount\r\n03/05/2026,BLUE BOTTLE SF,-12.50\r\n';

let createObjectURL: ReturnType<typeof vi.fn>;
let clicks: ReturnType<typeof vi.spyOn>;
beforeEach(() => {
  server.use(
    http.get('/api/sub-accounts', () => HttpResponse.json({ items: subAccounts })),
    http.get(
      EXPORT,
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
    http.get('/api/transactions/export-receipts/req-qb', () =>
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
    ['QuickBooks CSV', 'quickbooks', /QuickBooks Online bank CSV: Date, Description, Amount/],
    ['Xero CSV', 'xero', /Xero bank statement CSV/],
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
    for (const label of ['Export CSV', 'QuickBooks CSV', 'Xero CSV']) {
      const button = screen.getByRole('button', { name: label });
      expect(button).toHaveAttribute('aria-disabled', 'true');
      expect(button).toHaveAccessibleDescription(/^Nothing to export/);
      await user.click(button);
    }
    expect(requestsTo(EXPORT)).toHaveLength(0);
  });
});
