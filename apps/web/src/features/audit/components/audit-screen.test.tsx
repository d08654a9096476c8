import type { AuditPage } from '@card-console/shared/api/audit';
import { screen, within } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { adminSession, auditRecord, financeSession } from '../../../test/fixtures';
import { renderApp } from '../../../test/render-app';
import { apiError, server } from '../../../test/server';

describe('audit screen', () => {
  it('lists who did what, when, the outcome, reason and before → after; Load more appends', async () => {
    server.use(
      http.get('/api/audit', ({ request }) => {
        const cursor = new URL(request.url).searchParams.get('cursor');
        const page: AuditPage =
          cursor === '2'
            ? {
                items: [
                  auditRecord({
                    id: 'au_0',
                    action: 'card.reveal',
                    reason: 'Hotel booking',
                    before: undefined,
                    after: undefined,
                    at: '2026-03-01T09:00:00.000Z',
                  }),
                ],
              }
            : {
                items: [
                  auditRecord(),
                  auditRecord({
                    id: 'au_2',
                    action: 'access.denied',
                    outcome: 'denied',
                    actor: 'finance@example.test',
                    role: 'finance',
                    before: undefined,
                    after: undefined,
                  }),
                ],
                nextCursor: '2',
              };
        return HttpResponse.json(page);
      }),
    );
    const { user } = renderApp('/audit', { session: adminSession() });
    const change = await screen.findByRole('row', { name: /Changed card/ });
    expect(within(change).getByText('Maximum: $500.00 → $250.00')).toBeInTheDocument();
    expect(within(change).getByRole('link', { name: 'Card card_1 (•••• 4242)' })).toHaveAttribute(
      'href',
      '/cards/card_1',
    );
    expect(within(change).getByText('success')).toBeInTheDocument();
    const denied = screen.getByRole('row', { name: /Access denied/ });
    expect(within(denied).getByText('denied')).toBeInTheDocument();
    expect(within(denied).getByText('finance@example.test')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Load more' }));
    const reveal = await screen.findByRole('row', { name: /Revealed card details/ });
    expect(within(reveal).getByText('Hotel booking')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Load more' })).not.toBeInTheDocument();
    // Newest first: the appended (older) record comes last.
    const rows = screen.getAllByRole('row').slice(1);
    expect(rows.at(-1)).toBe(reveal);
  });

  it('a change shows only the fields that moved; a failed one shows the card as it was', async () => {
    server.use(
      http.get('/api/audit', () =>
        HttpResponse.json<AuditPage>({
          items: [
            auditRecord({
              id: 'au_3',
              before: { name: 'Travel', minimumCents: 0, maximumCents: 420_000 },
              after: { name: 'Travel (team)', minimumCents: 0, maximumCents: 430_000 },
            }),
            auditRecord({
              id: 'au_2',
              outcome: 'failed',
              detail: 'card_busy',
              before: { name: 'Travel', minimumCents: 0, maximumCents: 420_000 },
              after: undefined,
            }),
          ],
        }),
      ),
    );
    renderApp('/audit', { session: adminSession() });
    const [changed, failed] = (await screen.findAllByRole('row', { name: /Changed card/ })) as [
      HTMLElement,
      HTMLElement,
    ];
    const cells = (row: HTMLElement) => within(row).getAllByRole('cell');
    expect(cells(changed).at(-1)).toHaveTextContent(
      'Name: “Travel” → “Travel (team)”Maximum: $4,200.00 → $4,300.00',
    );
    expect(cells(changed).at(-1)).not.toHaveTextContent('Minimum');
    expect(cells(failed).at(-1)).toHaveTextContent(
      'name “Travel”, minimum $0.00, maximum $4,200.00 → —',
    );
    expect(within(failed).getByText('card_busy')).toBeInTheDocument();
  });

  it('a failed Load more shows the error with Retry and keeps the records; Retry appends', async () => {
    let failures = 1;
    server.use(
      http.get('/api/audit', ({ request }) => {
        if (new URL(request.url).searchParams.get('cursor') !== '2') {
          return HttpResponse.json<AuditPage>({ items: [auditRecord()], nextCursor: '2' });
        }
        if (failures-- > 0)
          return apiError(502, 'upstream_invalid_response', 'The card service answered oddly.');
        return HttpResponse.json<AuditPage>({
          items: [auditRecord({ id: 'au_9', action: 'subAccount.create', cardId: undefined })],
        });
      }),
    );
    const { user } = renderApp('/audit', { session: adminSession() });
    await screen.findByRole('row', { name: /Changed card/ });
    expect(screen.getByTestId('loaded-count')).toHaveTextContent('Showing 1 record');
    await user.click(screen.getByRole('button', { name: 'Load more' }));
    expect(await screen.findByText(/The card service answered oddly/)).toBeInTheDocument();
    expect(screen.getByRole('row', { name: /Changed card/ })).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByRole('row', { name: /Created sub account/ })).toBeInTheDocument();
    expect(screen.getByTestId('loaded-count')).toHaveTextContent('Showing 2 records');
    expect(screen.queryByRole('button', { name: 'Load more' })).not.toBeInTheDocument();
  });

  it('names sign-ins, step-ups and factor changes, with how the person proved who they are', async () => {
    const plain = { cardId: undefined, last4: undefined, before: undefined, after: undefined };
    server.use(
      http.get('/api/audit', () =>
        HttpResponse.json<AuditPage>({
          items: [
            auditRecord({ ...plain, id: 'a4', action: 'factor.removed', method: 'passkey' }),
            auditRecord({ ...plain, id: 'a3', action: 'factor.enrolled', method: 'totp' }),
            auditRecord({ ...plain, id: 'a2', action: 'session.stepUp', method: 'provider' }),
            auditRecord({
              ...plain,
              id: 'a1',
              action: 'session.signIn',
              method: 'password+passkey',
            }),
            auditRecord({ ...plain, id: 'a0', action: 'session.signIn', method: 'sso' }),
          ],
        }),
      ),
    );
    renderApp('/audit', { session: adminSession() });
    const whats = (await screen.findAllByRole('row'))
      .slice(1)
      .map((row) => within(row).getAllByRole('cell')[2]?.textContent);
    expect(whats).toEqual([
      'Factor removed · Passkey—',
      'Factor added · Authenticator code—',
      'Stepped up · SSO, signed in again—',
      'Signed in · Password + passkey—',
      'Signed in · SSO—',
    ]);
    const action = screen.getByLabelText('Action');
    for (const label of ['Stepped up', 'Factor added', 'Factor removed']) {
      expect(within(action).getByRole('option', { name: label })).toBeInTheDocument();
    }
  });

  it('says when nothing is recorded', async () => {
    server.use(http.get('/api/audit', () => HttpResponse.json<AuditPage>({ items: [] })));
    renderApp('/audit', { session: adminSession() });
    expect(await screen.findByText('Nothing has been recorded yet.')).toBeInTheDocument();
  });

  it('tells finance the audit trail is for admins (routes/-tests/dead-ends.test.tsx has more)', async () => {
    server.use(http.get('/api/audit', () => apiError(403, 'forbidden', 'Admins only.')));
    renderApp('/audit', { session: financeSession() });
    expect(await screen.findByRole('heading', { name: 'Not allowed' })).toBeInTheDocument();
    expect(screen.getByText('The audit trail is for admins.')).toBeInTheDocument();
  });
});
