import { screen, waitFor } from '@testing-library/react';
import { HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import {
  adminSession,
  financeSession,
  transaction,
  transactionNotes,
} from '../../../test/fixtures';
import { renderApp } from '../../../test/render-app';
import { serveRules } from '../../../test/serve-notes';
import { requestsTo, serve, server } from '../../../test/server';

const RULES = '/api/merchant-rules';

/** tx_1 (merchant BLUE BOTTLE SF) with its notes booked to `categoryId`. */
function serveTransaction(categoryId: string | null, overrides = {}) {
  server.use(
    serve('transactions.get', () => HttpResponse.json(transaction(overrides))),
    serve('notes.get', () => HttpResponse.json(transactionNotes({ categoryId, version: 1 }))),
  );
}

describe('a transaction: "Always book <merchant> to <category>"', () => {
  it("for an admin, makes a merchant rule of the transaction's merchant and saved category", async () => {
    serveRules();
    serveTransaction('cat_meals');
    const { user } = renderApp('/transactions/tx_1', { session: adminSession() });
    const button = await screen.findByRole('button', {
      name: 'Always book BLUE BOTTLE SF to 6100 Meals',
    });
    await user.click(button);
    const said = await screen.findByText(
      'New BLUE BOTTLE SF transactions will be booked to 6100 Meals.',
    );
    expect(await requestsTo(RULES, 'POST')[0]?.json()).toEqual({
      merchant: 'BLUE BOTTLE SF',
      categoryId: 'cat_meals',
    });
    // The button is gone with the rule made: the focus goes to what happened.
    await waitFor(() => expect(said).toHaveFocus());
    expect(screen.queryByRole('button', { name: /^Always book/ })).toBeNull();
  });

  it('a merchant that has a rule says where it books instead', async () => {
    serveRules([
      {
        id: 'rule_1',
        merchant: 'Blue Bottle SF',
        categoryId: 'cat_travel',
        createdBy: 'admin@example.test',
        createdAt: '2026-03-01T09:00:00.000Z',
      },
    ]);
    serveTransaction('cat_meals');
    renderApp('/transactions/tx_1', { session: adminSession() });
    const line = await screen.findByText(/^A merchant rule books new Blue Bottle SF transactions/);
    expect(line).toHaveTextContent(
      'A merchant rule books new Blue Bottle SF transactions to 6200 Travel. Merchant rules',
    );
    expect(screen.queryByRole('button', { name: /^Always book/ })).toBeNull();
  });

  it('a rule added meanwhile (409) is said plainly, with the rule as it is', async () => {
    serveRules();
    serveTransaction('cat_meals');
    const { user } = renderApp('/transactions/tx_1', { session: adminSession() });
    const button = await screen.findByRole('button', { name: /^Always book/ });
    // Someone else's rule reaches the BFF first.
    serveRules([
      {
        id: 'rule_9',
        merchant: 'BLUE BOTTLE SF',
        categoryId: 'cat_travel',
        createdBy: 'other@example.test',
        createdAt: '2026-03-01T09:00:00.000Z',
      },
    ]);
    await user.click(button);
    const said = await screen.findByText(
      'This merchant already has a rule. Remove it first to book the merchant elsewhere.',
    );
    expect(said).toHaveClass('form-error');
    expect(
      await screen.findByText(
        /^A merchant rule books new BLUE BOTTLE SF transactions to 6200 Travel/,
      ),
    ).toBeInTheDocument();
  });

  it('is not offered to finance, nor without a saved category or a merchant', async () => {
    serveRules();
    serveTransaction('cat_meals');
    const finance = renderApp('/transactions/tx_1', { session: financeSession() });
    await screen.findByLabelText('Accounting category');
    expect(screen.queryByRole('button', { name: /^Always book/ })).toBeNull();
    expect(requestsTo(RULES)).toHaveLength(0);
    finance.unmount();

    serveTransaction(null);
    const none = renderApp('/transactions/tx_1', { session: adminSession() });
    await screen.findByLabelText('Accounting category');
    await waitFor(() => expect(requestsTo('/api/accounting-categories').length).toBeGreaterThan(0));
    expect(screen.queryByRole('button', { name: /^Always book/ })).toBeNull();
    none.unmount();

    serveTransaction('cat_meals', { merchant: undefined });
    renderApp('/transactions/tx_1', { session: adminSession() });
    await screen.findByLabelText('Accounting category');
    expect(screen.queryByRole('button', { name: /^Always book/ })).toBeNull();
  });
});
