import { type Notes, RECEIPT_MAX_BYTES, type Receipt } from '@card-console/shared/api/notes';
import { screen, waitFor, within } from '@testing-library/react';
import { HttpResponse } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { financeSession, transaction, transactionNotes } from '../../../test/fixtures';
import { renderApp } from '../../../test/render-app';
import { apiError, requestsTo, serve, server } from '../../../test/server';

const ME = 'finance@example.test';
const AT = '2026-03-06T09:00:00.000Z';
const RECEIPTS = '/api/transactions/tx_1/receipts';
/** The fakes answer for this transaction alone. */
const tx1 = { id: 'tx_1' };
/** The first bytes of a PNG: what the BFF looks at to take a file as a picture. */
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]);

const reviewed: Notes['review'] = { state: 'reviewed', by: ME, at: AT };

function receipt(overrides: Partial<Receipt> = {}): Receipt {
  return {
    id: 'rc_1',
    transactionId: 'tx_1',
    fileName: 'dinner.png',
    mediaType: 'image/png',
    byteSize: 48_213,
    sha256: 'a'.repeat(64),
    uploadedBy: ME,
    uploadedAt: AT,
    ...overrides,
  };
}

/**
 * The BFF's receipts of tx_1, as it keeps them: a file is taken by its bytes (a PNG here, 415
 * otherwise), named by `X-File-Name`; a reviewed transaction takes no change (409). A receipt
 * leaves the notes and their version as they are, as the BFF does.
 */
function serveReceipts(start: Receipt[] = [], notesAt: Notes = transactionNotes()) {
  let items = [...start];
  const notes = notesAt;
  const bodies: { name: string | null; bytes: Uint8Array }[] = [];
  server.use(
    serve('transactions.get', () => HttpResponse.json(transaction())),
    serve('notes.get', () => HttpResponse.json(notes)),
    serve('receipts.list', tx1, () => HttpResponse.json({ items })),
    serve('receipts.upload', tx1, async ({ request }) => {
      const bytes = new Uint8Array(await request.arrayBuffer());
      const name = request.headers.get('x-file-name');
      bodies.push({ name, bytes });
      if (notes.review.state === 'reviewed') {
        return apiError(409, 'transaction_reviewed', 'Reviewed: reopen it first.', {
          current: notes,
        });
      }
      if (!PNG.every((b, i) => bytes[i] === b)) {
        return apiError(
          415,
          'unsupported_file',
          'Upload a JPEG, PNG, WebP or HEIC picture or a PDF.',
        );
      }
      const added = receipt({
        id: `rc_${items.length + 2}`,
        fileName: decodeURIComponent(name ?? 'receipt'),
        byteSize: bytes.length,
      });
      items = [...items, added];
      return HttpResponse.json(added, { status: 201 });
    }),
    serve('receipts.remove', tx1, ({ params }) => {
      if (notes.review.state === 'reviewed') {
        return apiError(409, 'transaction_reviewed', 'Reviewed: reopen it first.', {
          current: notes,
        });
      }
      items = items.filter((r) => r.id !== params.receiptId);
      return new HttpResponse(null, { status: 204 });
    }),
    serve(
      'receipts.download',
      tx1,
      () => new HttpResponse(PNG, { headers: { 'Content-Type': 'image/png' } }),
    ),
  );
  return { bodies };
}

const pngFile = (name: string) => new File([PNG], name, { type: 'image/png' });

const open = () => renderApp('/transactions/tx_1', { session: financeSession() });
/** The receipts panel once its list has loaded. */
const receiptsPanel = async () => {
  const panel = await screen.findByRole('region', { name: 'Receipts' }, { timeout: 3000 });
  await waitFor(() => expect(screen.queryByText('Loading receipts…')).not.toBeInTheDocument());
  return within(panel);
};
const names = (panel: ReturnType<typeof within>) =>
  within(panel.getByRole('list', { name: 'Receipts attached' }))
    .getAllByRole('listitem')
    .map((li) => li.querySelector('.receipt-about .receipt-name')?.textContent);

beforeEach(() => {
  let n = 0;
  Object.assign(URL, {
    createObjectURL: vi.fn(() => `blob:receipt-${++n}`),
    revokeObjectURL: vi.fn(),
  });
});
afterEach(() => vi.restoreAllMocks());

describe('the receipts of a transaction', { timeout: 15_000 }, () => {
  it('lists each receipt with its type, size, who added it, a preview and Download', async () => {
    serveReceipts([
      receipt(),
      receipt({
        id: 'rc_2',
        fileName: 'taxi.pdf',
        mediaType: 'application/pdf',
        byteSize: 2_400_000,
      }),
    ]);
    open();
    const panel = await receiptsPanel();
    expect(names(panel)).toEqual(['dinner.png', 'taxi.pdf']);
    expect(panel.getByText(/^PNG · 47 KB · added by finance@example\.test on/)).toBeInTheDocument();
    expect(panel.getByText(/^PDF · 2\.3 MB · added by/)).toBeInTheDocument();
    // The picture is fetched with the API's header and shown from a Blob URL; a PDF is not.
    const img = await panel.findByAltText('Receipt dinner.png');
    expect(img).toHaveAttribute('src', expect.stringMatching(/^blob:receipt-/));
    expect(requestsTo(`${RECEIPTS}/rc_1`)[0]?.headers.get('x-csrf')).toBe('1');
    expect(requestsTo(`${RECEIPTS}/rc_2`)).toHaveLength(0);
    expect(panel.getByRole('button', { name: 'Download taxi.pdf' })).toBeInTheDocument();
    expect(panel.getByText('2 of 10')).toBeInTheDocument();
  });

  it('attaches several files one after another, sending each one’s bytes and name, and lists them', async () => {
    const { bodies } = serveReceipts();
    const { user, queryClient } = open();
    const panel = await receiptsPanel();
    expect(panel.getByText('No receipt attached yet.')).toBeInTheDocument();
    const invalidate = vi.spyOn(queryClient, 'invalidateQueries');
    await user.upload(panel.getByLabelText('Attach a receipt'), [
      pngFile('Dîner à Paris.png'),
      pngFile('taxi.png'),
    ]);
    expect(await panel.findByText('Attached taxi.png.')).toBeInTheDocument();
    expect(panel.getByText('Attached Dîner à Paris.png.')).toBeInTheDocument();
    await waitFor(() => expect(names(panel)).toEqual(['Dîner à Paris.png', 'taxi.png']));
    // The raw bytes as the body, the name percent-encoded (a header is Latin-1).
    expect(bodies.map((b) => b.name)).toEqual([
      encodeURIComponent('Dîner à Paris.png'),
      'taxi.png',
    ]);
    expect(bodies.every((b) => b.bytes.length === PNG.length)).toBe(true);
    const posts = requestsTo(RECEIPTS, 'POST');
    expect(posts[0]?.headers.get('x-csrf')).toBe('1');
    expect(posts[0]?.headers.get('content-type')).toBe('application/octet-stream');
    // The receipts, the notes (reviewed meanwhile or not) and every index list and count.
    const keys = invalidate.mock.calls.map(([filters]) => JSON.stringify(filters?.queryKey));
    expect(keys).toEqual(
      expect.arrayContaining([
        JSON.stringify(['transactions', 'receipts', 'tx_1']),
        JSON.stringify(['transactions', 'notes', 'tx_1']),
        JSON.stringify(['transactions', 'index']),
      ]),
    );
    expect(panel.getByText('2 of 10')).toBeInTheDocument();
  });

  it('refuses a file over 10 MB without sending it, and still sends the others chosen with it', async () => {
    const { bodies } = serveReceipts();
    const { user } = open();
    const panel = await receiptsPanel();
    const big = new File([new Uint8Array(RECEIPT_MAX_BYTES + 1)], 'scan.png', {
      type: 'image/png',
    });
    await user.upload(panel.getByLabelText('Attach a receipt'), [big, pngFile('ok.png')]);
    const alert = await panel.findByText(/^scan\.png was not attached:/);
    expect(alert).toHaveTextContent('a receipt can be at most 10 MB. It was not sent.');
    expect(await panel.findByText('Attached ok.png.')).toBeInTheDocument();
    expect(bodies.map((b) => b.name)).toEqual(['ok.png']);
  });

  it("shows the server's reason for a file it refuses (415), naming the file", async () => {
    serveReceipts();
    const { user } = open();
    const panel = await receiptsPanel();
    const fake = new File(['just some text'], 'receipt.png', { type: 'image/png' });
    await user.upload(panel.getByLabelText('Attach a receipt'), fake);
    const failures = await waitFor(() => {
      const alert = panel.getAllByRole('alert').find((a) => a.textContent?.includes('receipt.png'));
      expect(alert).toBeDefined();
      return alert as HTMLElement;
    });
    expect(failures).toHaveTextContent(
      'receipt.png was not attached: Upload a JPEG, PNG, WebP or HEIC picture or a PDF.',
    );
    expect(panel.getByText('No receipt attached yet.')).toBeInTheDocument();
    await userDismiss(user, panel);
    expect(panel.queryByText(/was not attached/)).toBeNull();
  });

  it('when told to wait (429), waits as long as the server asks, then sends the same file', async () => {
    serveReceipts();
    let refused = false;
    server.use(
      serve('receipts.upload', tx1, () => {
        if (refused) return undefined; // the BFF's own handler, from serveReceipts
        refused = true;
        return apiError(429, 'rate_limited', 'Too many uploads.', { retryAfterSeconds: 1 });
      }),
    );
    const { user } = open();
    const panel = await receiptsPanel();
    await user.upload(panel.getByLabelText('Attach a receipt'), pngFile('late.png'));
    expect(await panel.findByText(/^Too many uploads at once — continuing/)).toBeInTheDocument();
    expect(panel.getByText('Waiting: late.png')).toBeInTheDocument();
    expect(await panel.findByText('Attached late.png.', {}, { timeout: 4000 })).toBeInTheDocument();
    const posts = requestsTo(RECEIPTS, 'POST');
    expect(posts).toHaveLength(2);
    expect(panel.queryByText(/was not attached/)).toBeNull();
  });

  it('removes a receipt once confirmed, and keeps it when not', async () => {
    serveReceipts([receipt(), receipt({ id: 'rc_2', fileName: 'taxi.png' })]);
    const { user } = open();
    const panel = await receiptsPanel();
    await user.click(panel.getByRole('button', { name: 'Remove dinner.png' }));
    const dialog = screen.getByRole('dialog', { name: 'Remove this receipt?' });
    await user.click(within(dialog).getByRole('button', { name: 'Keep it' }));
    expect(requestsTo(`${RECEIPTS}/rc_1`, 'DELETE')).toHaveLength(0);

    await user.click(panel.getByRole('button', { name: 'Remove dinner.png' }));
    await user.click(screen.getByRole('button', { name: 'Remove receipt' }));
    expect(await panel.findByText('Removed dinner.png.')).toBeInTheDocument();
    await waitFor(() => expect(names(panel)).toEqual(['taxi.png']));
    expect(requestsTo(`${RECEIPTS}/rc_1`, 'DELETE')).toHaveLength(1);
    expect(screen.getByRole('heading', { name: 'Receipts' })).toHaveFocus();
  });

  it('once reviewed, offers no change: no Remove, no file input, and says why', async () => {
    serveReceipts([receipt()], transactionNotes({ review: reviewed, version: 3 }));
    open();
    const panel = await receiptsPanel();
    await panel.findByText(/receipts are locked\. Reopen it/);
    expect(panel.queryByLabelText('Attach a receipt')).toBeNull();
    expect(panel.queryByRole('button', { name: /^Remove/ })).toBeNull();
    expect(panel.getByRole('button', { name: 'Download dinner.png' })).toBeInTheDocument();
  });

  it('when the transaction was reviewed meanwhile, says so for every file chosen and locks', async () => {
    serveReceipts();
    const { user } = open();
    const panel = await receiptsPanel();
    // Someone reviews it after the page loaded: the BFF refuses and sends the notes as they are.
    server.use(
      serve('receipts.upload', tx1, () =>
        apiError(409, 'transaction_reviewed', 'This transaction has been reviewed.', {
          current: transactionNotes({ review: reviewed, version: 4 }),
        }),
      ),
    );
    await user.upload(panel.getByLabelText('Attach a receipt'), [
      pngFile('a.png'),
      pngFile('b.png'),
    ]);
    expect(
      await panel.findByText('a.png was not attached: This transaction has been reviewed.'),
    ).toBeInTheDocument();
    expect(
      panel.getByText('b.png was not attached: This transaction has been reviewed.'),
    ).toBeInTheDocument();
    expect(requestsTo(RECEIPTS, 'POST')).toHaveLength(1);
    expect(await panel.findByText(/receipts are locked/)).toBeInTheDocument();
    expect(panel.queryByLabelText('Attach a receipt')).toBeNull();
  });
});

async function userDismiss(
  user: ReturnType<typeof renderApp>['user'],
  panel: ReturnType<typeof within>,
) {
  await user.click(panel.getByRole('button', { name: 'Dismiss' }));
}
