import type { AuditListItem, AuditPage } from '@card-console/shared/api/audit';
import { screen, waitFor, within } from '@testing-library/react';
import { HttpResponse } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { adminSession, auditRecord, financeSession } from '../../../test/fixtures';
import { renderApp } from '../../../test/render-app';
import { apiError, requestsTo, serve as serveEndpoint, server } from '../../../test/server';

const plain = { cardId: undefined, last4: undefined, before: undefined, after: undefined };

function serve(items: AuditListItem[], nextCursor?: string) {
  server.use(
    serveEndpoint('audit.list', () => HttpResponse.json<AuditPage>({ items, nextCursor })),
  );
}

/** The text of each column of a row, by its header. */
async function cellsOf(name: RegExp | string): Promise<Record<string, string>> {
  const row = await screen.findByRole('row', { name });
  const headers = within(screen.getAllByRole('row')[0] as HTMLElement)
    .getAllByRole('columnheader')
    .map((h) => h.textContent ?? '');
  const cells = within(row).getAllByRole('cell');
  return Object.fromEntries(headers.map((h, i) => [h, cells[i]?.textContent ?? '']));
}

describe('audit screen', () => {
  it('shows each record on one row: when, who, action, target, outcome, reason, details', async () => {
    serve([
      auditRecord({
        id: '3',
        action: 'card.reveal',
        reason: 'Hotel booking',
        before: undefined,
        after: undefined,
        at: '2026-03-06T14:39:00.000Z',
      }),
      auditRecord({
        id: '2',
        before: { name: 'Travel', maximumCents: 50_000 },
        after: { name: 'Travel', maximumCents: 25_000 },
      }),
    ]);
    renderApp('/audit', { session: adminSession() });
    const headers = (await screen.findAllByRole('columnheader')).map((h) => h.textContent);
    expect(headers).toEqual(['When', 'Who', 'Action', 'Target', 'Outcome', 'Reason', 'Details']);

    const reveal = await cellsOf(/Hotel booking/);
    expect(reveal).toMatchObject({
      Who: 'admin@example.test · admin',
      Action: 'Reveal card',
      Target: 'Card •••• 4242',
      Outcome: 'Success',
      Reason: 'Hotel booking',
      Details: '—',
    });
    // A compact date on the row, the whole date and time in its tooltip.
    const when = screen.getByRole('row', { name: /Hotel booking/ }).querySelector('time');
    expect(when).toHaveAttribute('dateTime', '2026-03-06T14:39:00.000Z');
    expect(when?.textContent).toMatch(/^Mar 6, \d{1,2}:39 [AP]M$/);
    expect(when?.closest('button')?.getAttribute('title')).toMatch(/2026/);

    const edit = await cellsOf(/Edit card/);
    expect(edit).toMatchObject({
      Action: 'Edit card',
      Target: 'Travel •••• 4242',
      Reason: '—',
      Details: 'Maximum: $500.00 → $250.00',
    });
    expect(
      within(screen.getByRole('row', { name: /Edit card/ })).getByRole('link', {
        name: 'Travel •••• 4242',
      }),
    ).toHaveAttribute('href', '/cards/card_1');
  });

  it('says which action a refusal refused: a denied reveal and a denied edit read differently', async () => {
    const denied = {
      ...plain,
      action: 'access.denied' as const,
      outcome: 'denied' as const,
      actor: 'finance@example.test',
      role: 'finance' as const,
      cardId: 'card_2',
      last4: '1881',
    };
    serve([
      auditRecord({ ...denied, id: '4', attempted: 'card.reveal' }),
      auditRecord({ ...denied, id: '3', attempted: 'card.update', detail: 'bad_origin' }),
      auditRecord({ ...plain, ...denied, id: '2', cardId: undefined, attempted: 'audit.view' }),
      // Written before refusals named their attempt: only the route it was refused on.
      auditRecord({ ...plain, ...denied, id: '1', cardId: undefined, target: 'GET /api/x' }),
    ]);
    renderApp('/audit', { session: adminSession() });
    expect(await cellsOf(/Reveal card — denied/)).toMatchObject({
      Who: 'finance@example.test · finance',
      Target: 'Card •••• 1881',
      Outcome: 'Denied',
      Reason: '—',
      Details: 'Not allowed for this role',
    });
    expect(await cellsOf(/Edit card — denied/)).toMatchObject({
      Details: 'Sent from another site',
    });
    expect(await cellsOf(/View audit trail — denied/)).toMatchObject({ Target: '—' });
    expect(await cellsOf(/^.*Access denied/)).toMatchObject({ Target: 'GET /api/x' });
  });

  it('names a record’s card as the BFF knows it now, its last four always shown', async () => {
    serve([
      {
        ...auditRecord({
          id: '2',
          action: 'card.reveal',
          reason: 'Renamed since',
          before: undefined,
          after: undefined,
        }),
        card: { name: 'Team offsite', last4: '4242' },
      },
      // A card the BFF could not name: as the record saw it, else by its last four.
      auditRecord({ id: '1', before: { name: 'Old name' }, after: { name: 'Travel' } }),
    ]);
    renderApp('/audit', { session: adminSession() });
    const row = await screen.findByRole('row', { name: /Renamed since/ });
    expect(within(row).getByRole('link', { name: 'Team offsite •••• 4242' })).toHaveAttribute(
      'href',
      '/cards/card_1',
    );
    expect(await cellsOf(/Edit card/)).toMatchObject({ Target: 'Travel •••• 4242' });
  });

  it('links a card whose id holds spaces, "/" and "%", but not a card number recorded masked', async () => {
    serve([
      auditRecord({ id: '1', cardId: 'card one/100%', last4: '1111', reason: 'Odd id' }),
      auditRecord({ id: '2', cardId: '•••• 7899', last4: undefined, reason: 'Typed a number' }),
      auditRecord({ id: '3', cardId: '[20 digits]', last4: undefined, reason: 'Typed digits' }),
    ]);
    renderApp('/audit', { session: adminSession() });
    const odd = await screen.findByRole('row', { name: /Odd id/ });
    expect(within(odd).getByRole('link')).toHaveAttribute('href', '/cards/card%20one%2F100%25');
    for (const reason of [/Typed a number/, /Typed digits/]) {
      expect(within(screen.getByRole('row', { name: reason })).queryByRole('link')).toBeNull();
    }
  });

  it('names a created sub account as the target, never as a reason', async () => {
    serve([
      auditRecord({
        ...plain,
        id: '2',
        action: 'subAccount.create',
        subAccountId: 'sa_9',
        target: 'sa_9',
        detail: 'name "Marketing"',
      }),
      auditRecord({
        ...plain,
        id: '1',
        action: 'subAccount.create',
        outcome: 'failed',
        detail: 'name "Events": upstream_unavailable',
      }),
    ]);
    renderApp('/audit', { session: adminSession() });
    expect(await cellsOf(/Marketing/)).toMatchObject({
      Action: 'Create sub account',
      Target: 'Marketing',
      Reason: '—',
      Details: '—',
    });
    expect(await cellsOf(/Events/)).toMatchObject({
      Target: 'Events',
      Outcome: 'Failed',
      Reason: '—',
      Details: 'upstream_unavailable',
    });
  });

  it('names the transaction a notes or receipt record changed, opening it; the receipt by name', async () => {
    serve([
      auditRecord({
        ...plain,
        id: '2',
        action: 'transaction.annotate',
        subAccountId: 'sa_sales',
        target: 'txn_0000ffj',
        before: { memo: '' },
        after: { memo: 'Team lunch' },
      }),
      auditRecord({
        ...plain,
        id: '1',
        action: 'inbox.receive',
        target: 'item_3WOxQR',
        after: { receipt: 'lunch-receipt.png' },
        detail: 'upload; image/png, 835 bytes',
      }),
    ]);
    renderApp('/audit', { session: adminSession() });
    const notes = await cellsOf(/Team lunch/);
    expect(notes.Target).toBe('txn_0000ffj');
    const link = within(screen.getByRole('row', { name: /Team lunch/ })).getByRole('link', {
      name: 'txn_0000ffj',
    });
    expect(link).toHaveAttribute('href', '/transactions/txn_0000ffj');
    expect((await cellsOf(/lunch-receipt/)).Details).toBe(
      '— → receipt “lunch-receipt.png” · upload; image/png, 835 bytes',
    );
  });

  it('shows how people proved who they are, and a refused reveal’s cause, as details', async () => {
    serve([
      auditRecord({ ...plain, id: '4', action: 'factor.removed', method: 'passkey' }),
      auditRecord({ ...plain, id: '3', action: 'session.stepUp', method: 'provider' }),
      auditRecord({ ...plain, id: '2', action: 'session.signIn', method: 'password+passkey' }),
      auditRecord({
        id: '1',
        action: 'card.reveal',
        outcome: 'denied',
        reason: 'Supplier call',
        detail: 'rate_limited',
        before: undefined,
        after: undefined,
      }),
    ]);
    renderApp('/audit', { session: adminSession() });
    await screen.findByRole('row', { name: /Remove second factor/ });
    const rows = screen.getAllByRole('row').slice(1);
    const column = (i: number) =>
      rows.map((row) => within(row).getAllByRole('cell')[i]?.textContent);
    expect(column(2)).toEqual(['Remove second factor', 'Step up', 'Sign in', 'Reveal card']);
    expect(column(5)).toEqual(['—', '—', '—', 'Supplier call']);
    expect(column(6)).toEqual([
      'Passkey',
      'SSO, signed in again',
      'Password + passkey',
      'Too many attempts',
    ]);
  });

  it('shows a 100-character name or email whole, as the text of its cell (it wraps there)', async () => {
    const long = `${'a'.repeat(88)}@example.test`;
    const name = 'N'.repeat(100);
    serve([
      auditRecord({
        id: '1',
        actor: long,
        reason: 'R'.repeat(100),
        before: { name: 'Travel' },
        after: { name },
      }),
    ]);
    renderApp('/audit', { session: adminSession() });
    const row = await screen.findByRole('row', { name: new RegExp(name) });
    const [, who, , target, , reason, details] = within(row).getAllByRole('cell');
    expect(who).toHaveTextContent(`${long} · admin`);
    expect(target).toHaveTextContent(`${name} •••• 4242`);
    // The card's id, which the cell does not show, is in its tooltip.
    expect(target).toHaveAttribute('title', `${name} · •••• 4242 · card_1`);
    expect(reason).toHaveTextContent('R'.repeat(100));
    expect(details).toHaveTextContent(`Name: “Travel” → “${name}”`);
    // Fixed columns that never grow with their text (styles/audit.css: .audit-table).
    expect(screen.getByRole('table', { name: 'Audit records' })).toHaveClass('audit-table');
  });

  it('"Load more" appends older records and puts the page count in the URL, which reopens them', async () => {
    server.use(
      serveEndpoint('audit.list', ({ request }) => {
        const cursor = new URL(request.url).searchParams.get('cursor');
        return HttpResponse.json<AuditPage>(
          cursor === '2'
            ? { items: [auditRecord({ id: '1', reason: 'Old trip', action: 'card.reveal' })] }
            : {
                items: [auditRecord({ id: '3' }), auditRecord({ id: '2', reason: 'Newer' })],
                nextCursor: '2',
              },
        );
      }),
    );
    const { user, router } = renderApp('/audit', { session: adminSession() });
    await screen.findByRole('row', { name: /Newer/ });
    expect(screen.getByTestId('loaded-count')).toHaveTextContent('Showing 1–2, more available');
    await user.click(screen.getByRole('button', { name: 'Load more' }));
    const old = await screen.findByRole('row', { name: /Old trip/ });
    expect(screen.getAllByRole('row').at(-1)).toBe(old);
    await waitFor(() => expect(router.state.location.search).toEqual({ pages: '2' }));
    expect(screen.getByTestId('loaded-count')).toHaveTextContent('Showing 1–3, end of list');
    expect(screen.queryByRole('button', { name: 'Load more' })).not.toBeInTheDocument();

    // The same address opened afresh shows the same three records.
    const again = renderApp('/audit?pages=2', { session: adminSession() });
    await waitFor(() =>
      expect(within(again.container).getAllByRole('row', { name: /Old trip/ })).toHaveLength(1),
    );
  });

  it('a failed Load more shows the error with Retry and keeps the records; Retry appends', async () => {
    let failures = 1;
    server.use(
      serveEndpoint('audit.list', ({ request }) => {
        if (new URL(request.url).searchParams.get('cursor') !== '2') {
          return HttpResponse.json<AuditPage>({ items: [auditRecord()], nextCursor: '2' });
        }
        if (failures-- > 0)
          return apiError(502, 'upstream_invalid_response', 'The card service answered oddly.');
        return HttpResponse.json<AuditPage>({
          items: [auditRecord({ ...plain, id: 'au_9', action: 'subAccount.create' })],
        });
      }),
    );
    const { user } = renderApp('/audit', { session: adminSession() });
    await screen.findByRole('row', { name: /Edit card/ });
    await user.click(screen.getByRole('button', { name: 'Load more' }));
    expect(await screen.findByText(/The card service answered oddly/)).toBeInTheDocument();
    expect(screen.getByRole('row', { name: /Edit card/ })).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByRole('row', { name: /Create sub account/ })).toBeInTheDocument();
  });

  it('a failed list shows in its place with plain words and the request id, the filters kept; Retry loads it', async () => {
    let failures = 1;
    server.use(
      serveEndpoint('audit.list', () => {
        if (failures-- > 0) {
          return HttpResponse.json(
            { error: 'boom' },
            { status: 500, headers: { 'X-Request-Id': 'req-list-x7' } },
          );
        }
        return HttpResponse.json<AuditPage>({ items: [auditRecord()] });
      }),
    );
    const { user } = renderApp('/audit?outcome=success', { session: adminSession() });
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Something went wrong on our side');
    expect(alert).not.toHaveTextContent('500');
    expect(alert).toHaveTextContent('req-list-x7');
    expect(screen.getByRole('heading', { name: 'Audit' })).toBeInTheDocument();
    expect(screen.getByLabelText('Who (email)')).toBeInTheDocument();
    expect(screen.getByLabelText('Outcome')).toHaveValue('success');
    await user.click(within(alert).getByRole('button', { name: 'Retry' }));
    expect(await screen.findByRole('row', { name: /Edit card/ })).toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('a card service change recorded before it was sent reads as Started, with what it asked for, and can be filtered', async () => {
    serve([
      auditRecord({
        id: '7',
        outcome: 'success',
        before: { name: 'Travel', maximumCents: 50_000 },
        after: { name: 'Travel', maximumCents: 90_000 },
        requestId: 'req-edit-7',
      }),
      auditRecord({
        id: '6',
        outcome: 'started',
        before: { name: 'Travel', maximumCents: 50_000 },
        after: { maximumCents: 90_000 },
        requestId: 'req-edit-7',
      }),
    ]);
    const { user } = renderApp('/audit', { session: adminSession() });
    await screen.findByRole('row', { name: /Started/ });
    const rows = screen.getAllByRole('row').slice(1);
    const cells = rows.map((row) =>
      within(row)
        .getAllByRole('cell')
        .map((c) => c.textContent),
    );
    expect(cells.map((c) => [c[2], c[4], c[6]])).toEqual([
      ['Edit card', 'Success', 'Maximum: $500.00 → $900.00'],
      ['Edit card', 'Started', 'Asked for Maximum: $500.00 → $900.00'],
    ]);
    await user.click(within(rows[1] as HTMLElement).getByRole('button'));
    const dialog = screen.getByRole('dialog', { name: 'Edit card — started' });
    expect(
      within(dialog).getByRole('columnheader', { name: 'Asked for (outcome recorded next)' }),
    ).toBeVisible();
    await user.keyboard('{Escape}');

    const asked: string[] = [];
    server.use(
      serveEndpoint('audit.list', ({ request }) => {
        asked.push(new URL(request.url).searchParams.get('outcome') ?? '');
        return HttpResponse.json<AuditPage>({ items: [] });
      }),
    );
    const outcome = screen.getByLabelText('Outcome');
    expect(within(outcome).getByRole('option', { name: 'Started' })).toBeInTheDocument();
    await user.selectOptions(outcome, 'started');
    await waitFor(() => expect(asked).toContain('started'));
  });

  it('a record opens whole: reason, before and after, request id; a refused edit shows what it attempted', async () => {
    serve([
      auditRecord({
        id: '5',
        outcome: 'failed',
        reason: 'Raise for the offsite',
        before: { name: 'Travel', minimumCents: 100, maximumCents: 50_000 },
        after: { maximumCents: 90_000 },
        detail: 'card_changed',
        requestId: 'req-refused-5',
      }),
    ]);
    const { user } = renderApp('/audit', { session: adminSession() });
    const row = await screen.findByRole('row', { name: /Edit card/ });
    expect(await cellsOf(/Edit card/)).toMatchObject({
      Details: 'Tried Maximum: $500.00 → $900.00 · Card changed meanwhile',
    });
    const opener = within(row).getByRole('button');
    await user.click(opener);
    const dialog = screen.getByRole('dialog', { name: 'Edit card — failed' });
    expect(dialog).toHaveTextContent('Raise for the offsite');
    expect(dialog).toHaveTextContent('req-refused-5');
    expect(dialog).toHaveTextContent('Card changed meanwhile');
    expect(
      within(dialog).getByRole('columnheader', { name: 'Attempted (not saved)' }),
    ).toBeVisible();
    const maximum = within(dialog).getByRole('row', { name: /Maximum/ });
    expect(maximum).toHaveTextContent('$500.00');
    expect(maximum).toHaveTextContent('$900.00');
    expect(within(dialog).getByRole('row', { name: /Name/ })).toHaveTextContent('unchanged');
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(opener).toHaveFocus();
  });

  it('says when nothing is recorded', async () => {
    serve([]);
    renderApp('/audit', { session: adminSession() });
    expect(await screen.findByText('Nothing has been recorded yet.')).toBeInTheDocument();
  });

  it('tells finance the audit trail is for admins (routes/-tests/dead-ends.test.tsx has more)', async () => {
    server.use(serveEndpoint('audit.list', () => apiError(403, 'forbidden', 'Admins only.')));
    renderApp('/audit', { session: financeSession() });
    expect(await screen.findByRole('heading', { name: 'Not allowed' })).toBeInTheDocument();
    expect(screen.getByText('The audit trail is for admins.')).toBeInTheDocument();
  });
});

describe('audit export', () => {
  let clicks: ReturnType<typeof vi.spyOn>;
  let saved: { name: string; blob: Blob }[];
  beforeEach(() => {
    saved = [];
    let blob: Blob | undefined;
    Object.assign(URL, {
      createObjectURL: vi.fn((b: Blob) => {
        blob = b;
        return 'blob:mock';
      }),
      revokeObjectURL: vi.fn(),
    });
    clicks = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (
      this: HTMLAnchorElement,
    ) {
      if (blob) saved.push({ name: this.download, blob });
    });
  });
  afterEach(() => clicks.mockRestore());

  const CSV = 'id,local time (UTC)\r\n1,2026-03-06T09:00:00+00:00\r\n';

  it('is unavailable, and says why, when no record matches', async () => {
    serve([]);
    const { user } = renderApp('/audit?outcome=failed', { session: adminSession() });
    await screen.findByText('No records match these filters.');
    const button = screen.getByRole('button', { name: 'Export CSV' });
    expect(button).toHaveAttribute('aria-disabled', 'true');
    expect(button).toHaveAccessibleDescription(
      'Nothing to export: no records match these filters.',
    );
    await user.click(button);
    expect(requestsTo('/api/audit/export.csv')).toHaveLength(0);
  });

  it('downloads every record the filters match, times in the person’s zone, once its receipt vouches for it', async () => {
    serve([auditRecord()]);
    server.use(
      serveEndpoint(
        'audit.exportCsv',
        () =>
          new HttpResponse(CSV, {
            headers: {
              'Content-Type': 'text/csv',
              'Content-Disposition': 'attachment; filename="audit_2026-03-01_2026-03-06.csv"',
              'X-Request-Id': 'req-audit-export',
            },
          }),
      ),
      serveEndpoint('transactions.exportReceipt', { requestId: 'req-audit-export' }, () =>
        HttpResponse.json({ rows: 1, bytes: new TextEncoder().encode(CSV).length }),
      ),
    );
    const { user } = renderApp(
      '/audit?action=access.denied&attempted=card.reveal&from=2026-03-01&to=2026-03-06',
      { session: adminSession() },
    );
    await screen.findByRole('row', { name: /Edit card/ });
    const button = await screen.findByRole('button', { name: 'Export CSV' });
    expect(button).not.toHaveAttribute('aria-disabled');
    await user.click(button);
    await waitFor(() => expect(saved).toHaveLength(1));
    expect(saved[0]?.name).toBe('audit_2026-03-01_2026-03-06.csv');
    const asked = new URL(requestsTo('/api/audit/export.csv')[0]?.url ?? '');
    expect(Object.fromEntries(asked.searchParams)).toEqual({
      action: 'access.denied',
      attempted: 'card.reveal',
      from: expect.stringMatching(/^\d+$/),
      to: expect.stringMatching(/^\d+$/),
      tz: Intl.DateTimeFormat().resolvedOptions().timeZone,
    });
    // The same bounds the list was asked for.
    const listed = new URL(requestsTo('/api/audit').at(-1)?.url ?? '');
    expect(asked.searchParams.get('from')).toBe(listed.searchParams.get('from'));
    expect(asked.searchParams.get('to')).toBe(listed.searchParams.get('to'));
  });

  it('saves nothing when the download arrives short of its receipt, and says so', async () => {
    serve([auditRecord()]);
    server.use(
      serveEndpoint(
        'audit.exportCsv',
        () =>
          new HttpResponse(CSV, {
            headers: { 'Content-Type': 'text/csv', 'X-Request-Id': 'req-short' },
          }),
      ),
      serveEndpoint('transactions.exportReceipt', { requestId: 'req-short' }, () =>
        HttpResponse.json({ rows: 2, bytes: 999 }),
      ),
    );
    const { user } = renderApp('/audit', { session: adminSession() });
    await user.click(await screen.findByRole('button', { name: 'Export CSV' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'The export was interrupted before it finished; nothing was saved. Try again.',
    );
    expect(saved).toHaveLength(0);
  });
});
