import { screen, waitFor } from '@testing-library/react';
import { HttpResponse } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { financeSession, subAccounts } from '../../../test/fixtures';
import { renderApp } from '../../../test/render-app';
import { indexRow, serveIndex } from '../../../test/serve-index';
import { apiError, requestsTo, serve, server } from '../../../test/server';

const INTERRUPTED = 'The export was interrupted before it finished; nothing was saved. Try again.';
const encoder = new TextEncoder();

/** A CSV body that sends its header and some rows, then breaks off as a cut connection does. */
function streamCutAfterRows(rows: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent === 0) controller.enqueue(encoder.encode('id,date,amount\n'));
      if (sent < rows) {
        controller.enqueue(encoder.encode(`tx_${sent},2026-03-05,-1250\n`));
        sent += 1;
        return;
      }
      controller.error(new TypeError('terminated'));
    },
  });
}

const WHOLE = 'id,date\ntx_1,2026-03-05\n';

/** A CSV answer as the BFF sends it: the export's request id names its receipt. */
function csvResponse(body: string | ReadableStream<Uint8Array>, requestId = 'req-export-1') {
  return new HttpResponse(body, {
    headers: { 'Content-Type': 'text/csv', 'X-Request-Id': requestId },
  });
}

/** The BFF's receipt for `requestId`: what it generated, whatever arrived here. */
function serveReceipt(requestId: string, receipt: { rows: number; bytes: number }) {
  server.use(serve('transactions.exportReceipt', { requestId }, () => HttpResponse.json(receipt)));
}

let createObjectURL: ReturnType<typeof vi.fn>;
let clicks: ReturnType<typeof vi.spyOn>;
beforeEach(() => {
  server.use(serve('subAccounts.list', () => HttpResponse.json({ items: subAccounts })));
  serveIndex([indexRow()]);
  createObjectURL = vi.fn(() => 'blob:mock');
  Object.assign(URL, { createObjectURL, revokeObjectURL: vi.fn() });
  clicks = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => undefined);
});
afterEach(() => clicks.mockRestore());

async function exportFrom(path: string) {
  const view = renderApp(path, { session: financeSession() });
  await screen.findByRole('row', { name: /Coffee beans/ });
  await view.user.click(screen.getByRole('button', { name: 'Export CSV' }));
  return view;
}

describe('transactions export', () => {
  it('keeps the focus on the button while the export runs, and a second press starts nothing', async () => {
    let finish: (response: Response) => void = () => {};
    server.use(
      serve('index.exportCsv', () => new Promise<Response>((resolve) => (finish = resolve))),
    );
    serveReceipt('req-export-1', { rows: 1, bytes: encoder.encode(WHOLE).length });
    const { user } = await exportFrom('/transactions?subAccountId=sa_ops');
    const busy = await screen.findByRole('button', { name: 'Exporting…' });
    expect(busy).toHaveFocus();
    expect(busy).toHaveAttribute('aria-disabled', 'true');
    await user.click(busy);
    expect(requestsTo('/api/index/transactions/export.csv')).toHaveLength(1);
    finish(csvResponse(WHOLE));
    const ready = await screen.findByRole('button', { name: 'Export CSV' });
    expect(ready).toHaveFocus();
    expect(ready).not.toHaveAttribute('aria-disabled');
    await waitFor(() => expect(clicks).toHaveBeenCalledTimes(1));
  });

  it('when the server cuts the download part-way, says so and saves nothing', async () => {
    server.use(
      serve(
        'index.exportCsv',
        () =>
          new HttpResponse(streamCutAfterRows(200), { headers: { 'Content-Type': 'text/csv' } }),
      ),
    );
    await exportFrom('/transactions?subAccountId=sa_ops');
    expect(await screen.findByRole('alert')).toHaveTextContent(INTERRUPTED);
    expect(screen.getByRole('alert')).not.toHaveTextContent('Export failed');
    expect(createObjectURL).not.toHaveBeenCalled();
    expect(clicks).not.toHaveBeenCalled();
    expect(document.querySelector('a[download]')).toBeNull();
    // The person can try again at once.
    expect(screen.getByRole('button', { name: 'Export CSV' })).toBeEnabled();
  });

  it('a second try after an interruption saves the whole file and clears the message', async () => {
    let attempts = 0;
    server.use(
      serve('index.exportCsv', () => {
        attempts += 1;
        return attempts === 1
          ? csvResponse(streamCutAfterRows(3), 'req-export-cut')
          : csvResponse(WHOLE, 'req-export-2');
      }),
    );
    serveReceipt('req-export-2', { rows: 1, bytes: encoder.encode(WHOLE).length });
    const { user } = await exportFrom('/transactions?subAccountId=sa_ops');
    await screen.findByText(INTERRUPTED);
    await user.click(screen.getByRole('button', { name: 'Export CSV' }));
    await waitFor(() => expect(clicks).toHaveBeenCalledTimes(1));
    const blob = (createObjectURL.mock.calls[0] as unknown[] | undefined)?.[0] as Blob;
    expect(await blob.text()).toBe(WHOLE);
    expect(screen.queryByText(INTERRUPTED)).not.toBeInTheDocument();
    expect(requestsTo('/api/index/transactions/export.csv')).toHaveLength(2);
    // A body that broke off is never asked about: it is interrupted whatever a receipt says.
    expect(requestsTo('/api/transactions/export-receipts/req-export-cut')).toHaveLength(0);
  });

  it("a whole body whose receipt has its byte count saves the file, asking by the export's request id", async () => {
    const body = 'id,date,description\ntx_1,2026-03-05,Café ☕\n'; // bytes, not characters
    server.use(serve('index.exportCsv', () => csvResponse(body, 'req-export-7')));
    serveReceipt('req-export-7', { rows: 1, bytes: encoder.encode(body).length });
    await exportFrom('/transactions?subAccountId=sa_ops');
    await waitFor(() => expect(clicks).toHaveBeenCalledTimes(1));
    const blob = (createObjectURL.mock.calls[0] as unknown[] | undefined)?.[0] as Blob;
    expect(await blob.text()).toBe(body);
    const [asked] = requestsTo('/api/transactions/export-receipts/req-export-7');
    expect(asked?.headers.get('x-csrf')).toBe('1');
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('a body that ends cleanly but short of its receipt (a proxy hid the cut) saves nothing', async () => {
    server.use(serve('index.exportCsv', () => csvResponse(WHOLE)));
    serveReceipt('req-export-1', { rows: 2_000, bytes: 312_456 });
    await exportFrom('/transactions?subAccountId=sa_ops');
    expect(await screen.findByRole('alert')).toHaveTextContent(INTERRUPTED);
    expect(createObjectURL).not.toHaveBeenCalled();
    expect(clicks).not.toHaveBeenCalled();
    expect(screen.getByRole('button', { name: 'Export CSV' })).toBeEnabled();
  });

  it.each([
    ['has no receipt (404 export_incomplete)', () => apiError(404, 'export_incomplete')],
    ['cannot be checked (503 store_unavailable)', () => apiError(503, 'store_unavailable')],
    ['cannot be checked (the network fails)', () => HttpResponse.error()],
  ])(
    'a whole-looking body that %s saves nothing and says it was interrupted',
    async (_, answer) => {
      server.use(
        serve('index.exportCsv', () => csvResponse(WHOLE)),
        serve('transactions.exportReceipt', answer),
      );
      await exportFrom('/transactions?subAccountId=sa_ops');
      expect(await screen.findByRole('alert')).toHaveTextContent(INTERRUPTED);
      expect(requestsTo('/api/transactions/export-receipts/req-export-1')).toHaveLength(1);
      expect(createObjectURL).not.toHaveBeenCalled();
      expect(clicks).not.toHaveBeenCalled();
    },
  );

  it("a file the BFF ended with a row saying it is incomplete saves nothing and shows that row's reason", async () => {
    const body = [
      'id,date,amount',
      'tx_1,2026-03-05,-1250',
      '"INCOMPLETE: this file stops after 1 row. The card service sent 20 pages in a row with nothing new while listing transactions for the export, so Card Console stopped reading. Export again for the whole file.",,',
      '',
    ].join('\r\n');
    server.use(
      serve('index.exportCsv', () => csvResponse(body)),
      serve('transactions.exportReceipt', () => apiError(404, 'export_incomplete')),
    );
    await exportFrom('/transactions?subAccountId=sa_ops');
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'The export stopped part-way; nothing was saved. The card service sent 20 pages in a row with nothing new while listing transactions for the export, so Card Console stopped reading. Export again for the whole file.',
    );
    expect(createObjectURL).not.toHaveBeenCalled();
  });

  it('a body without a request id cannot be checked, so nothing is saved', async () => {
    server.use(
      serve(
        'index.exportCsv',
        () => new HttpResponse(WHOLE, { headers: { 'Content-Type': 'text/csv' } }),
      ),
    );
    await exportFrom('/transactions?subAccountId=sa_ops');
    expect(await screen.findByRole('alert')).toHaveTextContent(INTERRUPTED);
    expect(createObjectURL).not.toHaveBeenCalled();
  });

  it('a refusal before any row is an export failure with the server’s reason', async () => {
    server.use(
      serve('index.exportCsv', () =>
        apiError(429, 'export_busy', 'Another export of yours is still running.'),
      ),
    );
    await exportFrom('/transactions?subAccountId=sa_ops');
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Export failed: Another export of yours is still running.',
    );
    expect(createObjectURL).not.toHaveBeenCalled();
  });
});
