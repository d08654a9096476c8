import type { MerchantRule } from '@card-console/shared/api/accounting-categories';
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { adminSession } from '../../../test/fixtures';
import { renderApp } from '../../../test/render-app';
import { serveRules } from '../../../test/serve-notes';
import { requestsTo } from '../../../test/server';

const RULES = '/api/merchant-rules';

const blueBottle: MerchantRule = {
  id: 'rule_1',
  merchant: 'BLUE BOTTLE SF',
  categoryId: 'cat_meals',
  createdBy: 'admin@example.test',
  createdAt: '2026-03-01T09:00:00.000Z',
};

const section = () => screen.getByRole('region', { name: 'Merchant rules' });

describe('chart of accounts: merchant rules', () => {
  it('lists each rule as merchant → category, who added it and when', async () => {
    serveRules([
      blueBottle,
      { ...blueBottle, id: 'rule_2', merchant: 'OLD APP', categoryId: 'cat_old' },
    ]);
    renderApp('/accounting-categories', { session: adminSession() });
    const table = await screen.findByRole('table', { name: 'Merchant rules' });
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows.map((r) => [...r.children].slice(0, 2).map((c) => c.textContent))).toEqual([
      ['BLUE BOTTLE SF', '6100 Meals'],
      ['OLD APP', '6900 Old software (archived)'],
    ]);
    expect(rows[0]).toHaveTextContent('admin@example.test');
  });

  it('adds a rule from the merchant and a current category; the same merchant in another case is said under its field', async () => {
    serveRules();
    const { user } = renderApp('/accounting-categories', { session: adminSession() });
    await within(await screen.findByRole('region', { name: 'Merchant rules' })).findByText(
      'No merchant rules yet.',
    );
    const form = within(section()).getByRole('form', { name: 'Add merchant rule' });
    await user.click(within(form).getByRole('button', { name: 'Add rule' }));
    expect(within(form).getByLabelText('Merchant')).toHaveAccessibleDescription(
      'Enter the merchant as its transactions show it.',
    );
    expect(within(form).getByLabelText('Merchant')).toHaveFocus();
    expect(requestsTo(RULES, 'POST')).toHaveLength(0);

    // Archived categories are not offered.
    const category = within(form).getByLabelText('Books to');
    expect(within(category).queryByRole('option', { name: /Old software/ })).toBeNull();
    await user.type(within(form).getByLabelText('Merchant'), '  BLUE BOTTLE SF ');
    await user.selectOptions(category, '6100 Meals');
    await user.click(within(form).getByRole('button', { name: 'Add rule' }));
    expect(
      await within(section()).findByText(
        'Added: new BLUE BOTTLE SF transactions are booked to 6100 Meals.',
      ),
    ).toBeInTheDocument();
    expect(await requestsTo(RULES, 'POST')[0]?.json()).toEqual({
      merchant: 'BLUE BOTTLE SF',
      categoryId: 'cat_meals',
    });
    await within(section()).findByRole('row', { name: /BLUE BOTTLE SF/ });
    expect(within(form).getByLabelText('Merchant')).toHaveValue('');

    await user.type(within(form).getByLabelText('Merchant'), 'blue bottle sf');
    await user.selectOptions(within(form).getByLabelText('Books to'), '6200 Travel');
    await user.click(within(form).getByRole('button', { name: 'Add rule' }));
    await waitFor(() =>
      expect(within(form).getByLabelText('Merchant')).toHaveAccessibleDescription(
        'This merchant already has a rule. Remove it first to book the merchant elsewhere.',
      ),
    );
    expect(within(form).getByLabelText('Merchant')).toHaveFocus();
    // The earlier "Added" is not left beside the refusal.
    expect(within(section()).queryByText(/^Added:/)).toBeNull();
  });

  it('removes a rule; the focus goes to the section', async () => {
    serveRules([blueBottle]);
    const { user } = renderApp('/accounting-categories', { session: adminSession() });
    const remove = await screen.findByRole('button', {
      name: 'Remove the rule for BLUE BOTTLE SF',
    });
    await user.click(remove);
    expect(
      await within(section()).findByText(
        'Removed the rule for BLUE BOTTLE SF. Transactions it booked keep their category.',
      ),
    ).toBeInTheDocument();
    expect(requestsTo(`${RULES}/rule_1`, 'DELETE')).toHaveLength(1);
    await within(section()).findByText('No merchant rules yet.');
    expect(within(section()).getByRole('heading', { name: 'Merchant rules' })).toHaveFocus();
  });
});
