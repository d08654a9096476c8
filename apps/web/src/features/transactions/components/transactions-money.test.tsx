// The Transactions screen's money in the definition's words (docs/money.md): each figure named
// as finance names it, what it includes said beside it, what moved no money told apart, and
// totals by card that add up to the summary with the rest as one line. The expected figures are
// worked out by hand from docs/money.md's table.
import { screen, within } from '@testing-library/react';
import { HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { card, financeSession, subAccounts } from '../../../test/fixtures';
import { renderApp } from '../../../test/render-app';
import { indexRow, serveIndex } from '../../../test/serve-index';
import { serve as serveEndpoint, server } from '../../../test/server';

const on = (id: string, cardId: string | undefined, amountCents: number, status = 'settled') =>
  indexRow({
    id,
    description: `Row ${id}`,
    amountCents,
    status: status as never,
    ...(cardId
      ? { cardId, card: { name: `Card ${cardId}`, last4: '0000' } }
      : { cardId: undefined, card: undefined }),
  });

// Every status, with and without a card.
const rows = [
  on('1', 'a', -10_000),
  on('2', 'a', -2_500, 'pending'),
  on('3', 'b', -4_000, 'dispute'),
  on('4', 'a', 1_500, 'refund'),
  on('5', 'a', -7_000, 'canceled'),
  on('6', 'b', -3_000, 'reversed'),
  on('7', 'c', -900, 'declined'),
  on('8', undefined, -50_000, 'failed'),
  on('9', undefined, -20_000, 'returned'),
  on('10', undefined, -30_000),
  on('11', undefined, 100_000),
  on('12', 'd', -600),
  // A funding credit that failed: attempted, its amount counted with its sign.
  on('13', undefined, 40_000, 'failed'),
];

function serve(groups?: number) {
  server.use(
    serveEndpoint('subAccounts.list', () => HttpResponse.json({ items: subAccounts })),
    serveEndpoint('cards.list', () => HttpResponse.json({ items: [card()] })),
  );
  serveIndex(rows, groups === undefined ? {} : { groups });
}

describe("the Transactions screen's money", () => {
  it('names each figure as docs/money.md does, says what each includes, and counts what moved no money apart', async () => {
    serve();
    renderApp('/transactions', { session: financeSession() });
    const figures = (await screen.findByText('13 transactions')).closest('p') as HTMLElement;
    // Card spend: 1, 2 (pending), 3 (disputed), 12 less refund 4 = $171.00 - $15.00.
    expect(figures).toHaveTextContent('Card spend $156.00 (of which pending $25.00)');
    expect(figures).toHaveTextContent('Refunds $15.00');
    expect(figures).toHaveTextContent('Other payments $300.00');
    expect(figures).toHaveTextContent('Transfers in $1,000.00');
    // Posted: 1, 3, 4, 10, 11, 12 = -100 - 40 + 15 - 300 + 1,000 - 6.
    expect(figures).toHaveTextContent('Posted $569.00');
    expect(figures).not.toHaveTextContent(/Debits|Credits/);
    expect(screen.getByText(/^No money moved:/)).toHaveTextContent(
      'No money moved: Declined (attempted) 4 (-$179.00), Released 1 (-$30.00), Returned 1 (-$200.00)',
    );
    // What each total includes, in the definition's words, a fold away and on hover.
    expect(
      within(figures)
        .getByText(/^Card spend/)
        .closest('[title]'),
    ).toHaveAttribute(
      'title',
      'Settled, pending and disputed card charges, less refunds. Declined, canceled, failed and reversed charges are not in it.',
    );
    const words = screen.getByText('What each total includes').closest('details') as HTMLElement;
    expect(within(words).getByText('Declined (attempted)').nextSibling).toHaveTextContent(
      'Declined, canceled and failed: no money moved.',
    );
    expect(within(words).getByText('Posted').nextSibling).toHaveTextContent(
      /^Settled, refunded and disputed rows, the money that moved\./,
    );
    expect(within(words).getByText('Other payments').nextSibling).toHaveTextContent(
      'Payments without a card, such as ACH to a supplier: spend, not card spend.',
    );
  });

  it('totals by card: the largest by spend, "Other 3 cards" for the rest, and a total that is the summary', async () => {
    serve(2);
    const { user } = renderApp('/transactions', { session: financeSession() });
    await screen.findByText('13 transactions');
    await user.selectOptions(screen.getByLabelText('Totals by'), 'card');
    const table = await screen.findByRole('table', { name: 'Totals by card' });
    const headers = within(table)
      .getAllByRole('columnheader')
      .map((h) => h.textContent);
    expect(headers).toEqual([
      'Card',
      'Transactions',
      'Card spend',
      'Other payments',
      'Transfers in',
      'Declined (attempted)',
      'Posted',
    ]);
    // Each line's values (without the names a phone shows beside them, hidden from readers).
    const lines = within(table)
      .getAllByRole('row')
      .slice(1)
      .map((r) => {
        const values = r.cloneNode(true) as HTMLElement;
        for (const label of values.querySelectorAll('[aria-hidden="true"]')) label.remove();
        return values.textContent;
      });
    // No card: $300 of other payments; card a: $125.00 charged less $15.00 refunded.
    expect(lines).toEqual([
      'No card (transfers, payments)5$0.00$300.00$1,000.00-$100.00$700.00',
      'Card a4$110.00$0.00$0.00-$70.00-$85.00',
      // b ($40 spend, $30 released), d ($6), c ($9 declined).
      'Other 3 cards4$46.00$0.00$0.00-$9.00-$46.00',
      'Total13$156.00$300.00$1,000.00-$179.00$569.00',
    ]);
    expect(
      screen.getByText(/^The 2 largest of 5 by spend, the rest as one line/),
    ).toBeInTheDocument();
    // Each figure names its column where a phone shows the lines as cards.
    const first = within(table).getAllByRole('row')[1] as HTMLElement;
    expect([...first.querySelectorAll('.cell-label')].map((l) => l.textContent?.trim())).toEqual([
      'Transactions:',
      'Card spend:',
      'Other payments:',
      'Transfers in:',
      'Declined (attempted):',
      'Posted:',
    ]);
  });
});
