import { screen, waitFor, within } from '@testing-library/react';
import { HttpResponse } from 'msw';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { financeSession, subAccounts } from '../test/fixtures';
import { renderApp } from '../test/render-app';
import { indexRow, queryOf, serveIndex } from '../test/serve-index';
import { serveAttention, serveBulkNotes } from '../test/serve-notes';
import { apiError, quietAttention, requestsTo, serve, server } from '../test/server';
import { inTimeZone } from '../test/time-zone';

inTimeZone('America/New_York');

// Mid-March in New York: the close covers February and March so far.
const NOW = Date.parse('2026-03-15T16:00:00Z');
const FEB_1 = Date.UTC(2026, 1, 1, 5); // midnight, New York standard time
const MAR_15_END = Date.UTC(2026, 2, 16, 4) - 1; // end of the day, daylight time since March 8

beforeEach(() => {
  server.use(serve('subAccounts.list', () => HttpResponse.json({ items: subAccounts })));
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(NOW);
});

const nav = () => screen.getByRole('navigation', { name: 'Main' });
/** Money that moved or will, as docs/money.md's table reads (posted or pending), by hand. */
const MOVED = ['pending', 'settled', 'refund', 'dispute'];

describe('the navigation counts what the month close still needs', { timeout: 15_000 }, () => {
  it('the unreviewed of last month and this month so far, every sub account; the rest in its tooltip', async () => {
    server.use(
      serve('index.attention', () =>
        HttpResponse.json(
          quietAttention({
            unreviewed: { count: 1_042, debitCents: 5_000_00 },
            uncategorized: { count: 7, debitCents: 1_00 },
            declined: { count: 3, cents: -2_00 },
          }),
        ),
      ),
    );
    serveIndex([]);
    renderApp('/sub-accounts', { session: financeSession() });
    const link = await screen.findByRole('link', { name: '1,042 to review' });
    expect(nav()).toContainElement(link);
    expect(link).toHaveAccessibleDescription(
      'To review from Feb 1, 2026 to today (last month and this month so far), every sub account: 1,042 transactions whose money moved, not reviewed; 7 with no accounting category; apart, 3 declined, canceled or failed (no money moved). Opens those to review in Transactions.',
    );
    const asked = requestsTo('/api/index/attention').map((r) => queryOf(r.url));
    expect(asked).toEqual([{ from: String(FEB_1), to: String(MAR_15_END) }]);
    const href = new URL(link.getAttribute('href') ?? '', 'http://x');
    expect(href.pathname).toBe('/transactions');
    // Of the money that moved or will (docs/money.md): settled, refund, dispute and pending.
    expect(Object.fromEntries(href.searchParams)).toEqual({
      review: 'unreviewed',
      status: MOVED.join(','),
      from: '2026-02-01',
      to: '2026-03-15',
    });
  });

  it('opens Transactions on exactly those: the list asks for the same period, and its count falls as they are reviewed', async () => {
    const rows = [
      indexRow({ id: 'tx_jan', date: '2026-01-31T15:00:00Z', description: 'January lunch' }),
      indexRow({ id: 'tx_feb', date: '2026-02-10T15:00:00Z', description: 'February taxi' }),
      indexRow({ id: 'tx_mar', date: '2026-03-14T15:00:00Z', description: 'March hotel' }),
    ];
    serveIndex(rows);
    serveAttention(rows);
    serveBulkNotes(rows);
    const { user, router } = renderApp('/sub-accounts', { session: financeSession() });
    await user.click(await screen.findByRole('link', { name: '2 to review' }));
    await screen.findByRole('row', { name: /February taxi/ });
    expect(router.state.location.pathname).toBe('/transactions');
    expect(screen.queryByRole('row', { name: /January lunch/ })).toBeNull();
    expect(queryOf(requestsTo('/api/index/transactions').at(-1)?.url ?? '')).toEqual({
      review: 'unreviewed',
      status: MOVED,
      from: String(FEB_1),
      to: String(MAR_15_END),
    });
    expect(screen.getByText('2 transactions')).toBeInTheDocument();

    await user.click(screen.getByRole('checkbox', { name: /^Select March hotel/ }));
    await user.click(screen.getByRole('button', { name: 'Mark reviewed' }));
    expect(nav()).toContainElement(await screen.findByRole('link', { name: '1 to review' }));
    await waitFor(() => expect(screen.getByText('1 transaction')).toBeInTheDocument());
  });

  it('on Transactions over every day, the "To review" chip and the navigation say the same count over the same days, in the same words', async () => {
    const rows = [
      indexRow({ id: 'tx_old', date: '2025-11-02T15:00:00Z', description: 'Last year taxi' }),
      indexRow({ id: 'tx_jan', date: '2026-01-31T15:00:00Z', description: 'January lunch' }),
      indexRow({ id: 'tx_feb', date: '2026-02-10T15:00:00Z', description: 'February taxi' }),
      indexRow({ id: 'tx_mar', date: '2026-03-14T15:00:00Z', description: 'March hotel' }),
      indexRow({
        id: 'tx_declined',
        date: '2026-03-13T15:00:00Z',
        description: 'Blocked purchase',
        status: 'declined',
      }),
    ];
    serveIndex(rows);
    serveAttention(rows);
    renderApp('/transactions', { session: financeSession() });
    await screen.findByRole('row', { name: /Last year taxi/ });
    const link = await screen.findByRole('link', { name: '2 to review' });
    expect(nav()).toContainElement(link);
    const presets = screen.getByRole('group', { name: 'Needs attention' });
    const chip = await within(presets).findByRole('button', { name: 'To review 2' });
    const days = 'from Feb 1, 2026 to today (last month and this month so far)';
    expect(link.title.startsWith(`To review ${days}, every sub account: 2 transactions`)).toBe(
      true,
    );
    expect(chip).toHaveAccessibleDescription(
      `2 transactions to review (money that moved, not reviewed) ${days}, every sub account`,
    );
    // One period asked for, by both.
    const asked = requestsTo('/api/index/attention').map((r) => queryOf(r.url));
    expect(new Set(asked.map((q) => JSON.stringify(q)))).toEqual(
      new Set([JSON.stringify({ from: String(FEB_1), to: String(MAR_15_END) })]),
    );
  });

  it('during the first sync it says still syncing and how many so far, never a count that reads as done', async () => {
    server.use(
      serve('index.attention', () =>
        HttpResponse.json(
          quietAttention({
            unreviewed: { count: 1_204, debitCents: 9_00 },
            freshness: { syncing: true, days: 90, daysDone: 12 },
          }),
        ),
      ),
    );
    serveIndex([]);
    const { router } = renderApp('/sub-accounts', { session: financeSession() });
    const link = await screen.findByRole('link', {
      name: 'To review: still syncing — 1,204 so far',
    });
    expect(nav()).toContainElement(link);
    expect(link).not.toHaveClass('done');
    expect(link).toHaveAccessibleDescription(/^Still syncing, so far: to review from Feb 1, 2026/);

    await router.navigate({ to: '/transactions' });
    const presets = await screen.findByRole('group', { name: 'Needs attention' });
    const chip = await within(presets).findByRole('button', { name: 'To review 1,204 so far' });
    expect(chip).toHaveAccessibleDescription(/^Still syncing — 1,204 transactions to review/);
  });

  it('none left: the count says 0, marked done', async () => {
    serveIndex([]);
    renderApp('/sub-accounts', { session: financeSession() });
    const link = await screen.findByRole('link', { name: '0 to review' });
    expect(nav()).toContainElement(link);
    expect(link).toHaveClass('done');
  });

  it('when the counts cannot be read, the navigation leaves them out and the screen shows', async () => {
    server.use(serve('index.attention', () => apiError(503, 'store_unavailable', 'Down.')));
    serveIndex([]);
    renderApp('/sub-accounts', { session: financeSession() });
    await screen.findByRole('heading', { name: 'Sub accounts', level: 1 });
    await waitFor(() => expect(requestsTo('/api/index/attention')).toHaveLength(1));
    expect(within(nav()).queryByRole('link', { name: /to review/ })).toBeNull();
    expect(within(nav()).getAllByRole('listitem')).toHaveLength(7);
  });
});
