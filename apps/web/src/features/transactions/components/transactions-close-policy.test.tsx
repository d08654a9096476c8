// "Needs attention" follows the close policy the counts report: "Missing memo" appears only when
// the policy names categories needing a memo, and shows those categories' rows without one;
// "Missing receipt" goes when the policy asks for no receipts.
import type { Attention } from '@card-console/shared/api/transaction-index';
import { screen, waitFor, within } from '@testing-library/react';
import { HttpResponse } from 'msw';
import { beforeEach, describe, expect, it } from 'vitest';
import { accountingCategories, financeSession, subAccounts } from '../../../test/fixtures';
import { renderApp } from '../../../test/render-app';
import { indexRow, listNotes, queryOf, serveIndex } from '../../../test/serve-index';
import { quietAttention, requestsTo, serve, server } from '../../../test/server';

const LIST = '/api/index/transactions';
const lastListQuery = () => queryOf(requestsTo(LIST).at(-1)?.url ?? 'http://x/');

const rows = [
  indexRow({ id: 'tx_1', description: 'Dinner', notes: listNotes({ categoryId: 'cat_meals' }) }),
  indexRow({
    id: 'tx_2',
    description: 'Lunch',
    notes: listNotes({ categoryId: 'cat_meals', memo: 'Team lunch' }),
  }),
  indexRow({ id: 'tx_3', description: 'Flight', notes: listNotes({ categoryId: 'cat_travel' }) }),
  indexRow({ id: 'tx_4', description: 'Pens' }),
];

function serveCounts(overrides: Partial<Attention>) {
  server.use(serve('index.attention', () => HttpResponse.json(quietAttention(overrides))));
}

beforeEach(() => {
  server.use(
    serve('subAccounts.list', () => HttpResponse.json({ items: subAccounts })),
    serve('accountingCategories.list', () => HttpResponse.json({ items: accountingCategories })),
  );
  serveIndex(rows);
});

const shown = () =>
  screen
    .getAllByRole('row')
    .slice(1)
    .map((row) => row.querySelector('td.col-description a')?.textContent);
const presets = () => screen.getByRole('group', { name: 'Needs attention' });

describe('transactions: the close policy in "Needs attention"', () => {
  it('offers no "Missing memo" while the policy names no category', async () => {
    serveCounts({ missingReceipt: { count: 0, debitCents: 0, fromCents: 7_500 } });
    renderApp('/transactions?from=2026-03-01&to=2026-03-31', { session: financeSession() });
    await screen.findByRole('row', { name: /Dinner/ });
    await within(presets()).findByRole('button', { name: /^Missing receipt/ });
    expect(within(presets()).queryByRole('button', { name: /^Missing memo/ })).toBeNull();
  });

  it('"Missing memo" shows the rows of the policy\'s categories without a memo, with its count; pressed again, clears', async () => {
    serveCounts({
      missingMemo: { count: 1, debitCents: 1_250, categoryIds: ['cat_meals'] },
    });
    const { user, router } = renderApp('/transactions?from=2026-03-01&to=2026-03-31', {
      session: financeSession(),
    });
    await screen.findByRole('row', { name: /Dinner/ });
    const preset = await within(presets()).findByRole('button', { name: 'Missing memo 1' });
    expect(preset).toHaveAttribute(
      'title',
      expect.stringMatching(
        /^1 transaction booked to the category the close policy asks a memo for, with none/,
      ),
    );
    await user.click(preset);
    await waitFor(() =>
      expect(router.state.location.search).toEqual({
        from: '2026-03-01',
        to: '2026-03-31',
        status: ['pending', 'settled', 'refund', 'dispute'],
        account: 'cat_meals',
        memo: 'missing',
      }),
    );
    expect(lastListQuery()).toMatchObject({
      status: ['pending', 'settled', 'refund', 'dispute'],
      account: 'cat_meals',
      memo: 'missing',
    });
    await waitFor(() => expect(shown()).toEqual(['Dinner']));
    expect(within(presets()).getByRole('button', { name: 'Missing memo 1' })).toHaveAttribute(
      'aria-pressed',
      'true',
    );
    expect(screen.getByRole('button', { name: 'Remove filter Memo missing' })).toBeInTheDocument();

    await user.click(within(presets()).getByRole('button', { name: 'Missing memo 1' }));
    await waitFor(() =>
      expect(router.state.location.search).toEqual({ from: '2026-03-01', to: '2026-03-31' }),
    );
  });

  it('carries a memo filter from the address to the index', async () => {
    const { router } = renderApp('/transactions?memo=written', { session: financeSession() });
    await waitFor(() => expect(shown()).toEqual(['Lunch']));
    expect(lastListQuery()).toEqual({ memo: 'written' });
    expect(router.state.location.search).toEqual({ memo: 'written' });
  });

  it('offers no "Missing receipt" when the policy asks for no receipts', async () => {
    serveCounts({ missingReceipt: { count: 0, debitCents: 0, fromCents: null } });
    renderApp('/transactions?from=2026-03-01&to=2026-03-31', { session: financeSession() });
    await screen.findByRole('row', { name: /Dinner/ });
    await within(presets()).findByRole('button', { name: /^To review/ });
    await waitFor(() =>
      expect(within(presets()).queryByRole('button', { name: /^Missing receipt/ })).toBeNull(),
    );
  });
});
