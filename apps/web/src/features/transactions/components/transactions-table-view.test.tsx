import { screen, within } from '@testing-library/react';
import { HttpResponse } from 'msw';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { card, financeSession, subAccounts } from '../../../test/fixtures';
import { renderApp } from '../../../test/render-app';
import { indexRow, serveIndex } from '../../../test/serve-index';
import { serve, server } from '../../../test/server';
import { tableViewKey } from './use-table-view';

const LONG_MERCHANT = `PAYPAL *${'OAKNOODLES'.repeat(8)} SAN FRANCISCO CA`;
const rows = [
  indexRow({ merchant: { description: LONG_MERCHANT, categoryCode: '5814' } }),
  indexRow({
    id: 'tx_2',
    date: '2026-03-04T12:00:00.000Z',
    description: 'Blocked purchase',
    amountCents: -99_00,
    status: 'declined',
    declineReason: 'Exceeds transaction size limit',
    card: { name: 'Ava Haddad (events)', last4: '3146' },
  }),
  indexRow({
    id: 'tx_3',
    date: '2026-03-03T12:00:00.000Z',
    description: 'FIGMA',
    merchant: { description: 'FIGMA', categoryCode: '5734' },
  }),
];

function serveScreen() {
  server.use(
    serve('subAccounts.list', () => HttpResponse.json({ items: subAccounts })),
    serve('cards.list', () => HttpResponse.json({ items: [card()] })),
  );
  serveIndex(rows, { pageSize: 100 });
}

const FINANCE = financeSession();
const OTHER = financeSession({ email: 'other@example.test' });

const table = () => screen.getByRole('table', { name: 'Transactions' });
const headers = () =>
  within(table())
    .getAllByRole('columnheader')
    .map((h) => h.textContent?.replace(/[↑↓]/g, '').trim());

async function openScreen(session = FINANCE) {
  serveScreen();
  const view = renderApp('/transactions', { session });
  await screen.findByRole('row', { name: /Coffee beans/ });
  return view;
}

beforeEach(() => localStorage.clear());
afterEach(() => localStorage.clear());

describe('the transactions table: columns and density, per person', () => {
  it('shows every column, compact, until the person chooses otherwise', async () => {
    await openScreen();
    expect(headers()).toEqual([
      '', // the box that selects every row shown
      'Date',
      'Description',
      'Amount',
      'Status',
      'Notes',
      'Card',
      'Sub account',
    ]);
    expect(table()).toHaveClass('compact');
    expect(screen.getByRole('radio', { name: 'Compact' })).toBeChecked();
  });

  it('hides a column the person unticks, keeps it hidden for them, not for someone else', async () => {
    const first = await openScreen();
    await first.user.click(screen.getByText('Columns'));
    const notes = screen.getByRole('checkbox', { name: 'Notes' });
    const card = screen.getByRole('checkbox', { name: 'Card and last four' });
    expect(notes).toBeChecked();
    // By keyboard: the box takes Space.
    notes.focus();
    await first.user.keyboard(' ');
    await first.user.click(card);
    expect(headers()).not.toContain('Notes');
    expect(headers()).not.toContain('Card');
    expect(headers()).toEqual(expect.arrayContaining(['Date', 'Description', 'Amount']));
    expect(table().querySelector('td.col-notes, td.col-card')).toBeNull();
    expect(screen.getByText('Columns').textContent).toMatch(/2 hidden/);
    // Escape closes the list and gives the focus back to its button.
    await first.user.keyboard('{Escape}');
    expect(screen.getByText('Columns').closest('details')).not.toHaveAttribute('open');
    expect(screen.queryByRole('checkbox', { name: 'Notes' })).not.toBeInTheDocument();
    expect(document.activeElement).toBe(screen.getByText('Columns').closest('summary'));
    expect(JSON.parse(localStorage.getItem(tableViewKey(FINANCE.email)) ?? '{}')).toMatchObject({
      hidden: ['notes', 'card'],
    });
    first.unmount();

    const again = await openScreen();
    expect(headers()).not.toContain('Notes');
    expect(headers()).not.toContain('Card');
    await again.user.click(screen.getByText(/Columns/));
    await again.user.click(screen.getByRole('checkbox', { name: 'Card and last four' }));
    expect(headers()).toContain('Card');
    again.unmount();

    await openScreen(OTHER);
    expect(headers()).toContain('Notes');
    expect(headers()).toContain('Card');
    // Three renders of the whole app: an allowance for a loaded machine, not a speed check.
  }, 20_000);

  it('Date, Description and Amount cannot be hidden', async () => {
    const { user } = await openScreen();
    await user.click(screen.getByText('Columns'));
    const panel = screen.getByRole('group', { name: 'Show columns' });
    const names = within(panel)
      .getAllByRole('checkbox')
      .map((box) => box.parentElement?.textContent);
    expect(names).toEqual([
      'Merchant line',
      'Status and decline reason',
      'Notes',
      'Card and last four',
      'Sub account name',
    ]);
  });

  it('keeps the density the person chose, for them alone', async () => {
    const first = await openScreen();
    await first.user.click(screen.getByRole('radio', { name: 'Comfortable' }));
    expect(table()).toHaveClass('comfortable');
    expect(table()).not.toHaveClass('compact');
    first.unmount();

    const again = await openScreen();
    expect(table()).toHaveClass('comfortable');
    expect(screen.getByRole('radio', { name: 'Comfortable' })).toBeChecked();
    again.unmount();

    await openScreen(OTHER);
    expect(table()).toHaveClass('compact');
  }, 20_000);

  it('a stored view it cannot read is the default, not an error', async () => {
    localStorage.setItem(tableViewKey(FINANCE.email), '{"hidden":"notes","density":"huge"');
    await openScreen();
    expect(headers()).toContain('Notes');
    expect(table()).toHaveClass('compact');
  });
});

describe('the transactions table: nothing that tells a row apart is cut', () => {
  it('shows the merchant, the decline reason and the card whole, as text, never only in a tooltip', async () => {
    await openScreen();
    const coffee = screen.getByRole('row', { name: /Coffee beans/ });
    const merchant = within(coffee).getByText(LONG_MERCHANT);
    // Under the description, in its cell, not a column of its own.
    expect(merchant.closest('td')).toHaveClass('col-description');
    expect(merchant).not.toHaveAttribute('title', LONG_MERCHANT);

    const declined = screen.getByRole('row', { name: /Blocked purchase/ });
    const reason = within(declined).getByText('Exceeds transaction size limit');
    expect(reason.closest('td')).toHaveClass('col-status');
    expect(within(declined).getByText('Declined', { selector: '.badge' })).toBeInTheDocument();
    const cardCell = declined.querySelector('td.col-card') as HTMLElement;
    expect(within(cardCell).getByText('Ava Haddad (events)')).toBeInTheDocument();
    expect(within(cardCell).getByText('•••• 3146')).toBeInTheDocument();
    expect(within(cardCell).getByRole('link')).toHaveAccessibleName(
      'Ava Haddad (events) •••• 3146',
    );

    // Nothing in the table is cut with "…" (the class that did it) or told only by a tooltip.
    expect(table().querySelector('.cut')).toBeNull();
    for (const el of table().querySelectorAll('tbody [title]')) {
      expect(el.textContent?.trim(), el.outerHTML).not.toBe('');
    }
    // No empty "Decline reason" column for the rows that were not declined.
    expect(headers()).not.toContain('Decline reason');
  });

  it('leaves out a merchant that only repeats the description', async () => {
    await openScreen();
    const figma = screen.getByRole('row', { name: /FIGMA/ });
    expect(within(figma).getAllByText('FIGMA')).toHaveLength(1);
  });

  it('hiding the merchant line leaves the description', async () => {
    const { user } = await openScreen();
    await user.click(screen.getByText('Columns'));
    await user.click(screen.getByRole('checkbox', { name: 'Merchant line' }));
    const coffee = screen.getByRole('row', { name: /Coffee beans/ });
    expect(within(coffee).queryByText(LONG_MERCHANT)).not.toBeInTheDocument();
    expect(within(coffee).getByRole('link', { name: 'Coffee beans' })).toBeInTheDocument();
  });
});
