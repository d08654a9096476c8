import type { AccountingCategory } from '@card-console/shared/api/accounting-categories';
import { screen, waitFor, within } from '@testing-library/react';
import { HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { accountingCategories, adminSession } from '../../../test/fixtures';
import { renderApp } from '../../../test/render-app';
import { apiError, requestsTo, serve, server } from '../../../test/server';

const IMPORT = '/api/accounting-categories/import';
const QUICKBOOKS_CHART =
  'Account #,Account,Type\r\n6100,Meals and entertainment,Expense\r\n8100,Bank interest,Income\r\n';

/** The chart, and an import that renames 6100 and adds 8100 (as the BFF answers: the whole chart). */
function serveChart() {
  let items: AccountingCategory[] = [...accountingCategories];
  server.use(
    serve('accountingCategories.list', () => HttpResponse.json({ items })),
    serve('accountingCategories.import', async () => {
      items = [
        { ...(items[0] as AccountingCategory), name: 'Meals and entertainment' },
        ...items.slice(1),
        { id: 'cat_interest', code: '8100', name: 'Bank interest', archived: false },
      ];
      return HttpResponse.json({ created: 1, renamed: 1, unchanged: 0, items });
    }),
  );
}

const csvFile = (content: string | Uint8Array<ArrayBuffer>, name = 'chart.csv') =>
  new File([content], name, { type: 'text/csv' });

describe('chart of accounts: import from CSV', () => {
  it("sends the file's text as text/csv and says what it did; the list shows the chart as it is now", async () => {
    serveChart();
    const { user } = renderApp('/accounting-categories', { session: adminSession() });
    const input = await screen.findByLabelText('Chart of accounts file');
    expect(input).toHaveAccessibleDescription(/QuickBooks Online \(Account #, Account\), Xero/);
    await user.upload(input, csvFile(QUICKBOOKS_CHART));
    await user.click(screen.getByRole('button', { name: 'Import' }));
    expect(
      await screen.findByText('Imported chart.csv: 1 added, 1 renamed, 0 unchanged.'),
    ).toBeInTheDocument();
    const [sent] = requestsTo(IMPORT, 'POST');
    expect(sent?.headers.get('content-type')).toBe('text/csv');
    expect(sent?.headers.get('x-csrf')).toBe('1');
    expect(await sent?.text()).toBe(QUICKBOOKS_CHART);
    const table = screen.getByRole('table', { name: 'Accounting categories' });
    await within(table).findByRole('row', { name: /8100 Bank interest/ });
    expect(within(table).getByRole('row', { name: /6100 Meals and entertainment/ })).toBeVisible();
    // Ready for another file.
    expect(input).toHaveValue('');
  });

  it("a refused file shows the server's reason naming its lines; nothing changes", async () => {
    serveChart();
    server.use(
      serve('accountingCategories.import', () =>
        apiError(
          400,
          'invalid_body',
          'Nothing was imported: line 2: name is missing; line 3: code is missing.',
        ),
      ),
    );
    const { user } = renderApp('/accounting-categories', { session: adminSession() });
    const input = await screen.findByLabelText('Chart of accounts file');
    await user.upload(input, csvFile('Code,Name\n6100,\n,Nameless\n', 'bad.csv'));
    await user.click(screen.getByRole('button', { name: 'Import' }));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(
      'Nothing was imported: line 2: name is missing; line 3: code is missing.',
    );
    expect(input).toHaveAttribute('aria-invalid', 'true');
    expect(input).toHaveFocus();
    expect(screen.queryByText(/^Imported/)).toBeNull();
  });

  it('Import with no file chosen asks for one and sends nothing', async () => {
    serveChart();
    const { user } = renderApp('/accounting-categories', { session: adminSession() });
    await screen.findByLabelText('Chart of accounts file');
    await user.click(screen.getByRole('button', { name: 'Import' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Choose a CSV file first.');
    await waitFor(() => expect(screen.getByLabelText('Chart of accounts file')).toHaveFocus());
    expect(requestsTo(IMPORT, 'POST')).toHaveLength(0);
  });

  it('refuses a file that is not UTF-8 before sending it, saying how to save it', async () => {
    serveChart();
    const { user } = renderApp('/accounting-categories', { session: adminSession() });
    const input = await screen.findByLabelText('Chart of accounts file');
    // Excel's "CSV (Comma delimited)" on Windows: Windows-1252, é as the single byte E9.
    const windows1252 = Uint8Array.from('Code,Name\n9810,Caf\xe9 et d\xe9placements\n', (c) =>
      c.charCodeAt(0),
    );
    await user.upload(input, csvFile(windows1252, 'plan comptable.csv'));
    await user.click(screen.getByRole('button', { name: 'Import' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'plan comptable.csv is not UTF-8 text, so its accented letters would be lost. In Excel, save it as “CSV UTF-8 (Comma delimited)” and choose that file.',
    );
    expect(input).toHaveAttribute('aria-invalid', 'true');
    expect(input).toHaveFocus();
    expect(requestsTo(IMPORT, 'POST')).toHaveLength(0);
  });

  it('sends a UTF-8 file with a byte order mark, its accents intact', async () => {
    serveChart();
    const { user } = renderApp('/accounting-categories', { session: adminSession() });
    const input = await screen.findByLabelText('Chart of accounts file');
    const text = 'Code,Name\r\n9810,Café et déplacements\r\n';
    const bom = Uint8Array.of(0xef, 0xbb, 0xbf);
    const utf8 = new TextEncoder().encode(text);
    const bytes = new Uint8Array(bom.length + utf8.length);
    bytes.set(bom);
    bytes.set(utf8, bom.length);
    await user.upload(input, csvFile(bytes));
    await user.click(screen.getByRole('button', { name: 'Import' }));
    expect(await screen.findByText(/^Imported chart\.csv/)).toBeInTheDocument();
    const [sent] = requestsTo(IMPORT, 'POST');
    expect(await sent?.text()).toBe(text);
  });
});
