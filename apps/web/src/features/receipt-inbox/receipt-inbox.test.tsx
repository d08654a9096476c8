import { RECEIPT_MAX_BYTES } from '@card-console/shared/api/notes';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { delay, HttpResponse } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AnswerOf } from '../../lib/api-client';
import { financeSession, transaction } from '../../test/fixtures';
import { renderApp } from '../../test/render-app';
import { indexRow, queryOf, serveIndex } from '../../test/serve-index';
import { apiError, requestsTo, serve, server } from '../../test/server';
import { inTimeZone } from '../../test/time-zone';
import { INBOX_FILE_MAX_BYTES } from './inbox-file';

inTimeZone('America/New_York');

type InboxList = AnswerOf<'inbox.list'>;
type InboxItem = InboxList['items'][number];

const INBOX = '/api/receipt-inbox';
const ADDRESS = 'receipts+k3y@mail.example.test';
/** The first bytes of a PNG. */
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]);
const pngFile = (name: string) => new File([PNG], name, { type: 'image/png' });

function inboxItem(overrides: Partial<InboxItem> = {}): InboxItem {
  return {
    id: 'in_1',
    fileName: 'dinner.png',
    mediaType: 'image/png',
    byteSize: 48_213,
    receivedAt: '2026-03-06T14:00:00.000Z',
    via: 'upload',
    status: 'waiting',
    read: { merchant: 'Blue Bottle', date: '2026-03-05', totalCents: 1_250 },
    suggestions: [],
    ...overrides,
  };
}

function listOf(items: InboxItem[]): InboxList {
  const counts = { reading: 0, suggested: 0, waiting: 0, attached: 0 };
  for (const item of items) counts[item.status]++;
  return { items, counts };
}

/**
 * The BFF's inbox as it keeps it: the list (answered as `answers` says, else the items kept),
 * each upload a new item being read, attach and discard for any item (an attached item carrying
 * its transaction as the suggestion, or the card service, had it); the address enabled.
 */
function serveInbox(start: InboxItem[] = [], answers?: () => InboxItem[]) {
  let items = [...start];
  const uploads: { name: string | null; bytes: number }[] = [];
  server.use(
    serve('inbox.list', () => HttpResponse.json(listOf(answers ? answers() : items))),
    serve('inbox.upload', async ({ request }) => {
      const name = request.headers.get('x-file-name');
      const bytes = (await request.arrayBuffer()).byteLength;
      uploads.push({ name, bytes });
      const added = inboxItem({
        id: `in_up_${uploads.length}`,
        fileName: decodeURIComponent(name ?? 'receipt'),
        byteSize: bytes,
        status: 'reading',
        read: undefined,
      });
      items = [added, ...items];
      return HttpResponse.json(added, { status: 201 });
    }),
    serve('inbox.attach', async ({ params, request }) => {
      const body = (await request.json()) as { subAccountId: string; transactionId: string };
      const item = items.find((i) => i.id === params.id) as InboxItem;
      const tx =
        item.suggestions.find((s) => s.transactionId === body.transactionId) ??
        (({ description, date: at, amountCents }) => ({ description, at, amountCents }))(
          transaction({ id: body.transactionId }),
        );
      const attached: InboxItem = {
        ...item,
        status: 'attached',
        suggestions: [],
        attached: {
          ...body,
          receiptId: 'rc_9',
          description: tx.description,
          transactionAt: tx.at,
          amountCents: tx.amountCents,
          automatic: false,
          at: '2026-03-06T15:00:00Z',
        },
      };
      items = items.map((i) => (i.id === item.id ? attached : i));
      return HttpResponse.json(attached);
    }),
    serve('inbox.discard', ({ params }) => {
      items = items.filter((i) => i.id !== params.id);
      return new HttpResponse(null, { status: 204 });
    }),
    serve('inbox.address', () => HttpResponse.json({ enabled: true, address: ADDRESS })),
    serve('inbox.file', () => new HttpResponse(PNG, { headers: { 'Content-Type': 'image/png' } })),
  );
  return { uploads };
}

const open = (path = '/receipts') => renderApp(path, { session: financeSession() });
const heading = () =>
  screen.findByRole('heading', { level: 1, name: 'Receipt inbox' }, { timeout: 3000 });
/** The inbox's item named by its file. */
const itemOf = (fileName: string) =>
  within(screen.getByRole('heading', { level: 3, name: fileName }).closest('li') as HTMLElement);
/** The query keys a spied `invalidateQueries` was called with, as JSON. */
const invalidatedKeys = (spy: { mock: { calls: unknown[][] } }) =>
  spy.mock.calls.map((call) => JSON.stringify((call[0] as { queryKey?: unknown })?.queryKey));
const attachBodies = () =>
  Promise.all(
    requestsTo(`${INBOX}/in_1/attach`, 'POST').map((r) => r.clone().json() as Promise<unknown>),
  );

beforeEach(() => {
  let n = 0;
  Object.assign(URL, {
    createObjectURL: vi.fn(() => `blob:rinbox-${++n}`),
    revokeObjectURL: vi.fn(),
  });
});
afterEach(() => vi.restoreAllMocks());

describe('the receipt inbox', { timeout: 15_000 }, () => {
  it('sends each of two chosen files once, its bytes as the body and its name in X-File-Name', async () => {
    const { uploads } = serveInbox();
    const { user, queryClient } = open();
    await heading();
    expect(await screen.findByText(/Your inbox is empty/)).toBeInTheDocument();
    const invalidate = vi.spyOn(queryClient, 'invalidateQueries');
    await user.upload(screen.getByLabelText('Choose files'), [
      pngFile('Dîner à Paris.png'),
      pngFile('taxi.png'),
    ]);
    expect(await screen.findByText('Added taxi.png.')).toBeInTheDocument();
    expect(await screen.findByText('Added Dîner à Paris.png.')).toBeInTheDocument();
    const posts = requestsTo(INBOX, 'POST');
    expect(posts).toHaveLength(2);
    expect(posts.map((p) => p.headers.get('x-file-name')).sort()).toEqual(
      [encodeURIComponent('Dîner à Paris.png'), 'taxi.png'].sort(),
    );
    expect(posts.every((p) => p.headers.get('content-type') === 'application/octet-stream')).toBe(
      true,
    );
    expect(posts[0]?.headers.get('x-csrf')).toBe('1');
    expect(uploads.every((u) => u.bytes === PNG.length)).toBe(true);
    // Listed as they are read, and the inbox and every index list (and its counts) asked again.
    expect(await screen.findByRole('heading', { level: 3, name: 'taxi.png' })).toBeInTheDocument();
    expect(screen.getAllByText('Reading…')).toHaveLength(2);
    await waitFor(() =>
      expect(invalidatedKeys(invalidate)).toEqual(
        expect.arrayContaining([
          JSON.stringify(['receipt-inbox', 'list']),
          JSON.stringify(['transactions', 'index']),
        ]),
      ),
    );
  });

  it('takes files dropped on the zone, as many as are dropped', async () => {
    serveInbox();
    open();
    await heading();
    const zone = screen.getByRole('region', { name: 'Add receipts' });
    const dataTransfer = { files: [pngFile('one.png'), pngFile('two.png')], types: ['Files'] };
    fireEvent.dragOver(zone, { dataTransfer });
    expect(zone).toHaveClass('dragging');
    fireEvent.drop(zone, { dataTransfer });
    expect(zone).not.toHaveClass('dragging');
    expect(await screen.findByText('2 added to the inbox.')).toBeInTheDocument();
    expect(
      requestsTo(INBOX, 'POST')
        .map((r) => r.headers.get('x-file-name'))
        .sort(),
    ).toEqual(['one.png', 'two.png']);
  });

  it('sends at most two files at a time (what the server reads of one person at once), and every one of many', async () => {
    serveInbox();
    let inFlight = 0;
    let most = 0;
    let sent = 0;
    server.use(
      serve('inbox.upload', async ({ request }) => {
        inFlight++;
        most = Math.max(most, inFlight);
        await delay(60);
        inFlight--;
        sent++;
        const name = decodeURIComponent(request.headers.get('x-file-name') ?? '');
        return HttpResponse.json(
          inboxItem({ id: `in_${name}`, fileName: name, status: 'reading' }),
          {
            status: 201,
          },
        );
      }),
    );
    const { user } = open();
    await heading();
    const files = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((n) => pngFile(`${n}.png`));
    await user.upload(screen.getByLabelText('Choose files'), files);
    expect(
      await screen.findByText('7 added to the inbox.', {}, { timeout: 5000 }),
    ).toBeInTheDocument();
    expect(sent).toBe(7);
    expect(most).toBe(2);
  });

  it("shows the server's reason for a file it refuses, by name, and Try again sends it again", async () => {
    serveInbox();
    let refuse = true;
    server.use(
      serve('inbox.upload', ({ request }) => {
        if (refuse) {
          return apiError(
            415,
            'unsupported_file',
            'Upload a JPEG, PNG, WebP or HEIC picture or a PDF.',
          );
        }
        const name = decodeURIComponent(request.headers.get('x-file-name') ?? '');
        return HttpResponse.json(inboxItem({ id: 'in_again', fileName: name, status: 'reading' }), {
          status: 201,
        });
      }),
    );
    const { user } = open();
    await heading();
    await user.upload(screen.getByLabelText('Choose files'), pngFile('notes.png'));
    const alert = await waitFor(() => {
      const found = screen
        .getAllByRole('alert')
        .find((a) => a.textContent?.includes('notes.png was not added'));
      expect(found).toBeDefined();
      return found as HTMLElement;
    });
    expect(alert).toHaveTextContent(
      'notes.png was not added: Upload a JPEG, PNG, WebP or HEIC picture or a PDF.',
    );
    refuse = false;
    await user.click(within(alert).getByRole('button', { name: 'Try notes.png again' }));
    expect(await screen.findByText('Added notes.png.')).toBeInTheDocument();
    expect(requestsTo(INBOX, 'POST')).toHaveLength(2);
    expect(screen.queryByText(/was not added/)).toBeNull();
  });

  it('refuses a file over the size limit without sending it (the BFF’s receipt limit)', async () => {
    expect(INBOX_FILE_MAX_BYTES).toBe(RECEIPT_MAX_BYTES);
    serveInbox();
    const { user } = open();
    await heading();
    const big = new File([new Uint8Array(INBOX_FILE_MAX_BYTES + 1)], 'scan.png', {
      type: 'image/png',
    });
    await user.upload(screen.getByLabelText('Choose files'), [big, pngFile('ok.png')]);
    expect(await screen.findByText(/^scan\.png was not added:/)).toHaveTextContent(
      'a receipt can be at most 10 MB. It was not sent.',
    );
    expect(await screen.findByText('Added ok.png.')).toBeInTheDocument();
    expect(requestsTo(INBOX, 'POST').map((r) => r.headers.get('x-file-name'))).toEqual(['ok.png']);
  });

  it('shows a suggested item’s transactions best first with their reasons as words; Confirm attaches the best', async () => {
    serveInbox([
      inboxItem({
        status: 'suggested',
        suggestions: [
          {
            subAccountId: 'sa_ops',
            transactionId: 'tx_1',
            description: 'BLUE BOTTLE SF',
            merchant: 'Blue Bottle',
            at: '2026-03-05T15:30:00.000Z',
            amountCents: -1_250,
            score: 0.92,
            reasons: ['amount', 'date', 'merchant'],
          },
          {
            subAccountId: 'sa_travel',
            transactionId: 'tx_2',
            description: 'CAFE ROMA',
            at: '2026-03-07T15:30:00.000Z',
            amountCents: -1_500,
            score: 0.4,
            reasons: ['amount_with_tip', 'date_near', 'no_receipt'],
          },
        ],
      }),
    ]);
    const { user, queryClient } = open();
    await heading();
    const item = itemOf('dinner.png');
    const [best, other] = [
      ...item.getByRole('list', { name: 'Transactions that may be dinner.png' }).children,
    ] as HTMLElement[];
    expect(best).toHaveTextContent('Best match');
    const words = (li: HTMLElement | undefined) =>
      within(within(li as HTMLElement).getByRole('list', { name: 'Why it fits' }))
        .getAllByRole('listitem')
        .map((w) => w.textContent);
    expect(words(best)).toEqual(['same amount', 'same day', 'merchant name']);
    expect(words(other)).toEqual(['amount with a tip', '2 days apart', 'no receipt yet']);
    expect(item.getByText('Read:').parentElement).toHaveTextContent(
      'Blue Bottle · Mar 5, 2026 · $12.50',
    );
    expect(
      within(other as HTMLElement).getByRole('button', { name: /^This one: CAFE ROMA/ }),
    ).toBeInTheDocument();

    const invalidate = vi.spyOn(queryClient, 'invalidateQueries');
    await user.click(
      item.getByRole('button', { name: 'Confirm: BLUE BOTTLE SF, Mar 5, 2026, $12.50' }),
    );
    expect(
      await screen.findByText('Attached dinner.png to BLUE BOTTLE SF, Mar 5, 2026, $12.50.'),
    ).toBeInTheDocument();
    expect(await attachBodies()).toEqual([{ subAccountId: 'sa_ops', transactionId: 'tx_1' }]);
    expect(invalidatedKeys(invalidate)).toEqual(
      expect.arrayContaining([
        JSON.stringify(['receipt-inbox', 'list']),
        JSON.stringify(['transactions', 'index']),
        JSON.stringify(['transactions', 'receipts', 'tx_1']),
      ]),
    );
    // Now under Attached, saying to what (as the item carries it), with a way to it.
    const attached = await screen.findByRole('region', { name: /^Attached/ });
    expect(within(attached).getByText(/Attached to/)).toHaveTextContent(
      'Attached to BLUE BOTTLE SF Mar 5, 2026 · Debit $12.50',
    );
    expect(
      within(attached).getByRole('link', { name: 'Open the transaction of dinner.png' }),
    ).toHaveAttribute('href', '/transactions/tx_1');
  });

  it('asks for the list again every 2 s while an item is being read, in the background, and stops once it is read', async () => {
    let asked = 0;
    const reading = inboxItem({ status: 'reading', read: undefined });
    const read = inboxItem({
      status: 'suggested',
      suggestions: [
        {
          subAccountId: 'sa_ops',
          transactionId: 'tx_1',
          description: 'BLUE BOTTLE SF',
          at: '2026-03-05T15:30:00.000Z',
          amountCents: -1_250,
          score: 0.9,
          reasons: ['amount'],
        },
      ],
    });
    serveInbox([], () => (++asked < 3 ? [reading] : [read]));
    open();
    await heading();
    expect(itemOf('dinner.png').getByText('Reading…')).toBeInTheDocument();
    expect(
      await screen.findByRole('button', { name: /^Confirm: BLUE BOTTLE SF/ }, { timeout: 6000 }),
    ).toBeInTheDocument();
    const lists = requestsTo(INBOX);
    expect(lists.length).toBe(3);
    expect(lists.slice(1).every((r) => r.headers.get('x-background') === '1')).toBe(true);
    await delay(2_500);
    expect(requestsTo(INBOX)).toHaveLength(3);
  });

  it('a waiting item: searches the index by words and amount and attaches the transaction picked', async () => {
    serveInbox([
      inboxItem({
        fileName: 'hotel.pdf',
        mediaType: 'application/pdf',
        via: 'email',
        read: { merchant: 'Hotel Lux', totalCents: 42_000 },
      }),
    ]);
    serveIndex([
      indexRow({
        id: 'tx_9',
        description: 'HOTEL LUX BERLIN',
        amountCents: -42_000,
        subAccountId: 'sa_travel',
      }),
      indexRow({ id: 'tx_8', description: 'HOTEL LUX BERLIN', amountCents: -9_000 }),
      indexRow({ id: 'tx_7', description: 'Taxi', amountCents: -42_000 }),
    ]);
    const { user } = open();
    await heading();
    const item = itemOf('hotel.pdf');
    expect(item.getByText(/by email/)).toBeInTheDocument();
    expect(item.getByText('No transaction fits yet. Find it here:')).toBeInTheDocument();
    const form = within(item.getByRole('form', { name: 'Find the transaction of hotel.pdf' }));
    expect(form.getByLabelText('Amount (USD)')).toHaveValue('420.00');
    await user.type(form.getByLabelText('Search words'), 'hotel lux');
    await user.click(form.getByRole('button', { name: 'Search' }));
    const found = await item.findByRole('list', { name: 'Transactions found for hotel.pdf' });
    expect(queryOf(requestsTo('/api/index/transactions').at(-1)?.url ?? 'http://x/')).toEqual({
      q: 'hotel lux',
      minCents: '42000',
      maxCents: '42000',
      limit: '5',
    });
    const rows = within(found).getAllByRole('listitem');
    expect(rows).toHaveLength(1);
    await user.click(within(found).getByRole('button', { name: /^Attach to HOTEL LUX BERLIN/ }));
    await screen.findByText(/^Attached hotel\.pdf to HOTEL LUX BERLIN/);
    const bodies = await Promise.all(
      requestsTo(`${INBOX}/in_1/attach`, 'POST').map((r) => r.json() as Promise<unknown>),
    );
    expect(bodies).toEqual([{ subAccountId: 'sa_travel', transactionId: 'tx_9' }]);
  });

  it('Discard asks first, then deletes the item', async () => {
    serveInbox([inboxItem(), inboxItem({ id: 'in_2', fileName: 'taxi.png' })]);
    const { user } = open();
    await heading();
    await user.click(itemOf('dinner.png').getByRole('button', { name: 'Discard dinner.png' }));
    const dialog = within(screen.getByRole('dialog', { name: 'Discard this receipt?' }));
    await user.click(dialog.getByRole('button', { name: 'Keep it' }));
    expect(requestsTo(`${INBOX}/in_1`, 'DELETE')).toHaveLength(0);
    await user.click(itemOf('dinner.png').getByRole('button', { name: 'Discard dinner.png' }));
    await user.click(screen.getByRole('button', { name: 'Discard receipt' }));
    expect(await screen.findByText('Discarded dinner.png.')).toBeInTheDocument();
    expect(requestsTo(`${INBOX}/in_1`, 'DELETE')).toHaveLength(1);
    await waitFor(() =>
      expect(screen.queryByRole('heading', { level: 3, name: 'dinner.png' })).toBeNull(),
    );
    expect(screen.getByRole('heading', { level: 3, name: 'taxi.png' })).toBeInTheDocument();
  });

  it('shows what needs the person, what is read and what was attached, each alone on request', async () => {
    serveInbox([
      inboxItem({ id: 'in_1', fileName: 'waiting.png' }),
      inboxItem({ id: 'in_2', fileName: 'reading.png', status: 'reading', read: undefined }),
      inboxItem({
        id: 'in_3',
        fileName: 'done.png',
        status: 'attached',
        attached: {
          subAccountId: 'sa_ops',
          transactionId: 'tx_1',
          receiptId: 'rc_1',
          description: 'Coffee beans',
          transactionAt: '2026-03-05T15:30:00.000Z',
          amountCents: -1_250,
          automatic: true,
          at: '2026-03-06T15:00:00Z',
        },
      }),
    ]);
    const { user, router } = open();
    await heading();
    expect(screen.getAllByRole('heading', { level: 2 }).map((h) => h.textContent)).toEqual([
      'Add receipts',
      'Needs you',
      'Reading',
      'Attached (the last 30 days)',
      'Forward receipts by email',
    ]);
    // What it was attached to, from the item itself: the transaction is not asked for.
    expect(itemOf('done.png').getByText(/Attached automatically to/)).toHaveTextContent(
      'Attached automatically to Coffee beans Mar 5, 2026 · Debit $12.50',
    );
    expect(requestsTo('/api/transactions/tx_1')).toHaveLength(0);
    expect(itemOf('done.png').queryByRole('button', { name: /Discard/ })).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Needs you 1' }));
    await waitFor(() => expect(router.state.location.search).toEqual({ show: 'needs-you' }));
    expect(screen.getByRole('button', { name: 'Needs you 1' })).toHaveAttribute(
      'aria-pressed',
      'true',
    );
    expect(screen.getAllByRole('heading', { level: 3 }).map((h) => h.textContent)).toEqual([
      'waiting.png',
    ]);
  });

  it('forwarding: shows the address with Copy, and a new one only after saying the old stops working', async () => {
    serveInbox();
    server.use(
      serve('inbox.rotateAddress', () =>
        HttpResponse.json({ enabled: true, address: 'receipts+n3w@mail.example.test' }),
      ),
    );
    const { user } = open();
    await heading();
    const section = within(screen.getByRole('region', { name: 'Forward receipts by email' }));
    expect(await section.findByText(ADDRESS)).toBeInTheDocument();
    await user.click(section.getByRole('button', { name: 'Copy address' }));
    // user-event's own clipboard stands in for the browser's.
    expect(await navigator.clipboard.readText()).toBe(ADDRESS);
    expect(section.getByText('Copied.')).toBeInTheDocument();
    await user.click(section.getByRole('button', { name: 'New address' }));
    const dialog = within(screen.getByRole('dialog', { name: 'Get a new address?' }));
    expect(
      dialog.getByText(/stops working at once: mail sent to it is refused/),
    ).toBeInTheDocument();
    await user.click(dialog.getByRole('button', { name: 'Get a new address' }));
    expect(await section.findByText('receipts+n3w@mail.example.test')).toBeInTheDocument();
    expect(section.getByText(/Mail to the old one is refused from now on/)).toBeInTheDocument();
    expect(requestsTo(`${INBOX}/address`, 'POST')).toHaveLength(1);
  });

  it('forwarding: says so in one sentence when the operator has not set up receiving mail', async () => {
    serveInbox();
    server.use(serve('inbox.address', () => HttpResponse.json({ enabled: false })));
    open();
    await heading();
    const section = within(screen.getByRole('region', { name: 'Forward receipts by email' }));
    expect(
      await section.findByText(/the operator has not set up receiving mail/),
    ).toBeInTheDocument();
    expect(section.queryByRole('button')).toBeNull();
  });
});
