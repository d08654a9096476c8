import type { ClosePolicy } from '@card-console/shared/api/close-policy';
import { closePolicyUpdateSchema } from '@card-console/shared/api/close-policy';
import { screen, waitFor, within } from '@testing-library/react';
import { HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { accountingCategories, adminSession } from '../../../test/fixtures';
import { renderApp } from '../../../test/render-app';
import { apiError, requestsTo, serve, server } from '../../../test/server';

/**
 * The BFF's close policy, set by what the form sends (as the BFF checks it: on the version it
 * was made on, 409 `close_policy_changed` with the policy as it is otherwise). `byAnother` is a
 * change another admin saves meanwhile.
 */
function servePolicy(
  start: ClosePolicy = { receiptFromCents: 7_500, memoCategoryIds: [], version: 0 },
) {
  let policy = start;
  const sent: unknown[] = [];
  const byAnother = (change: Pick<ClosePolicy, 'receiptFromCents' | 'memoCategoryIds'>) => {
    policy = {
      ...change,
      updatedBy: 'other.admin@example.test',
      updatedAt: '2026-03-09T09:30:00.000Z',
      version: policy.version + 1,
    };
  };
  server.use(
    serve('accountingCategories.list', () => HttpResponse.json({ items: accountingCategories })),
    serve('closePolicy.get', () => HttpResponse.json(policy)),
    serve('closePolicy.update', async ({ request }) => {
      const { version, ...body } = closePolicyUpdateSchema.parse(await request.json());
      sent.push({ ...body, version });
      if (version !== policy.version) {
        return apiError(
          409,
          'close_policy_changed',
          'Another admin changed the close policy since you opened it. Review it as it is now and save again.',
          { current: policy },
        );
      }
      policy = {
        ...body,
        updatedBy: 'admin@example.test',
        updatedAt: '2026-03-09T10:00:00.000Z',
        version: policy.version + 1,
      };
      return HttpResponse.json(policy);
    }),
  );
  return { sent, byAnother };
}

const form = async () => within(await screen.findByRole('form', { name: 'Close policy' }));

describe('chart of accounts: the close policy', () => {
  it('shows the default policy: receipts from $75, no memo categories, archived ones not offered', async () => {
    servePolicy();
    renderApp('/accounting-categories', { session: adminSession() });
    const f = await form();
    expect(await f.findByLabelText('Receipt required from $')).toHaveValue('75.00');
    const memo = f.getByRole('group', { name: 'Memo required for' });
    expect(
      within(memo)
        .getAllByRole('checkbox')
        .map((c) => c.closest('label')?.textContent),
    ).toEqual([' 6100 Meals', ' 6200 Travel']);
    expect(within(memo).getByRole('checkbox', { name: /Meals/ })).not.toBeChecked();
    expect(f.getByText('The default policy: nobody has changed it yet.')).toBeInTheDocument();
  });

  it('saves the amount and the categories needing a memo, then asks for the month close’s counts again', async () => {
    const { sent } = servePolicy();
    const { user } = renderApp('/accounting-categories', { session: adminSession() });
    const f = await form();
    const amount = await f.findByLabelText('Receipt required from $');
    await waitFor(() => expect(requestsTo('/api/index/attention').length).toBeGreaterThan(0));
    const countsBefore = requestsTo('/api/index/attention').length;

    await user.clear(amount);
    await user.type(amount, '1,250');
    await user.click(f.getByRole('checkbox', { name: /6200 Travel/ }));
    await user.click(f.getByRole('checkbox', { name: /6100 Meals/ }));
    await user.click(f.getByRole('button', { name: 'Save close policy' }));

    expect(
      await f.findByText(
        'Saved. Receipts required from $1,250.00; memos required for 2 categories.',
      ),
    ).toBeInTheDocument();
    expect(sent).toEqual([
      { receiptFromCents: 125_000, memoCategoryIds: ['cat_travel', 'cat_meals'], version: 0 },
    ]);
    await waitFor(() =>
      expect(requestsTo('/api/index/attention').length).toBeGreaterThan(countsBefore),
    );
    expect(f.getByText(/^Last changed by admin@example\.test on /)).toBeInTheDocument();
  });

  it('takes an empty amount as no receipt policy, and unticks a category', async () => {
    const { sent } = servePolicy({
      receiptFromCents: 10_000,
      memoCategoryIds: ['cat_meals'],
      updatedBy: 'someone@example.test',
      updatedAt: '2026-03-01T09:00:00.000Z',
      version: 4,
    });
    const { user } = renderApp('/accounting-categories', { session: adminSession() });
    const f = await form();
    const amount = await f.findByLabelText('Receipt required from $');
    expect(amount).toHaveValue('100.00');
    expect(f.getByRole('checkbox', { name: /6100 Meals/ })).toBeChecked();
    await user.clear(amount);
    await user.click(f.getByRole('checkbox', { name: /6100 Meals/ }));
    await user.click(f.getByRole('button', { name: 'Save close policy' }));
    expect(
      await f.findByText('Saved. No receipts required; no memos required.'),
    ).toBeInTheDocument();
    expect(sent).toEqual([{ receiptFromCents: null, memoCategoryIds: [], version: 4 }]);
  });

  it('says what is wrong with the amount under its field and sends nothing', async () => {
    const { sent } = servePolicy();
    const { user } = renderApp('/accounting-categories', { session: adminSession() });
    const f = await form();
    const amount = await f.findByLabelText('Receipt required from $');
    for (const [typed, problem] of [
      ['12.345', 'Use at most two decimal places.'],
      ['-5', 'The amount cannot be negative.'],
      ['lots', 'Enter an amount in dollars, such as 1,234.50.'],
      ['2000000000', 'The amount cannot be above $1,000,000,000.00.'],
    ] as const) {
      await user.clear(amount);
      await user.type(amount, typed);
      await user.click(f.getByRole('button', { name: 'Save close policy' }));
      expect(amount).toHaveAccessibleDescription(expect.stringContaining(problem));
      expect(amount).toHaveFocus();
    }
    expect(sent).toEqual([]);
    expect(requestsTo('/api/close-policy', 'PUT')).toHaveLength(0);
  });

  it('shows the server’s refusal and keeps what was chosen', async () => {
    servePolicy();
    server.use(
      serve('closePolicy.update', () =>
        apiError(
          400,
          'invalid_body',
          '6200 Travel is archived. Choose current accounting categories for memos.',
        ),
      ),
    );
    const { user } = renderApp('/accounting-categories', { session: adminSession() });
    const f = await form();
    await f.findByLabelText('Receipt required from $');
    await user.click(f.getByRole('checkbox', { name: /6200 Travel/ }));
    await user.click(f.getByRole('button', { name: 'Save close policy' }));
    expect(await f.findByRole('alert')).toHaveTextContent(
      'Not saved: 6200 Travel is archived. Choose current accounting categories for memos.',
    );
    expect(f.getByRole('checkbox', { name: /6200 Travel/ })).toBeChecked();
  });

  it('offers an archived category only while the policy names it, saying it is archived', async () => {
    servePolicy({ receiptFromCents: 7_500, memoCategoryIds: ['cat_old'], version: 1 });
    renderApp('/accounting-categories', { session: adminSession() });
    const f = await form();
    expect(await f.findByRole('checkbox', { name: '6900 Old software (archived)' })).toBeChecked();
  });

  it('another admin saved meanwhile: says so, shows the policy as it is now, keeps what was typed until reloaded', async () => {
    const { sent, byAnother } = servePolicy();
    const { user } = renderApp('/accounting-categories', { session: adminSession() });
    const f = await form();
    const amount = await f.findByLabelText('Receipt required from $');
    expect(amount).toHaveValue('75.00');
    // Another admin sets receipts from $100 and a memo for Meals after this page loaded.
    byAnother({ receiptFromCents: 10_000, memoCategoryIds: ['cat_meals'] });

    await user.clear(amount);
    await user.type(amount, '50');
    await user.click(f.getByRole('checkbox', { name: /6200 Travel/ }));
    await user.click(f.getByRole('button', { name: 'Save close policy' }));

    const alert = await f.findByRole('alert');
    expect(alert).toHaveTextContent(
      /^Not saved: another admin changed the close policy while you were editing it \(other\.admin@example\.test on .+\)\. It is now: Receipts required from \$100\.00; memos required for 6100 Meals\./,
    );
    expect(sent).toEqual([
      { receiptFromCents: 5_000, memoCategoryIds: ['cat_travel'], version: 0 },
    ]);
    // Nothing said it was saved, and what was typed is still there.
    expect(f.queryByText(/^Saved\./)).not.toBeInTheDocument();
    expect(amount).toHaveValue('50');
    expect(f.getByRole('checkbox', { name: /6200 Travel/ })).toBeChecked();
    expect(f.getByRole('checkbox', { name: /6100 Meals/ })).not.toBeChecked();

    // Saved again without reloading: still refused, never over the other admin's change.
    await user.click(f.getByRole('button', { name: 'Save close policy' }));
    await waitFor(() => expect(sent).toHaveLength(2));
    expect(sent[1]).toMatchObject({ version: 0 });
    expect(await f.findByRole('alert')).toHaveTextContent(
      'It is now: Receipts required from $100.00',
    );
    expect(amount).toHaveValue('50');

    // Reloaded: the form is the policy as it is, and a save is made on its version.
    await user.click(f.getByRole('button', { name: 'Reload the policy' }));
    expect(f.queryByRole('alert')).not.toBeInTheDocument();
    expect(amount).toHaveValue('100.00');
    expect(f.getByRole('checkbox', { name: /6100 Meals/ })).toBeChecked();
    expect(f.getByRole('checkbox', { name: /6200 Travel/ })).not.toBeChecked();
    expect(f.getByText(/^Last changed by other\.admin@example\.test on /)).toBeInTheDocument();
    await user.click(f.getByRole('checkbox', { name: /6200 Travel/ }));
    await user.click(f.getByRole('button', { name: 'Save close policy' }));
    expect(
      await f.findByText('Saved. Receipts required from $100.00; memos required for 2 categories.'),
    ).toBeInTheDocument();
    expect(sent[2]).toEqual({
      receiptFromCents: 10_000,
      memoCategoryIds: ['cat_meals', 'cat_travel'],
      version: 1,
    });
  });

  it('sends the version the form was saved at next: two saves in a row are both saved', async () => {
    const { sent } = servePolicy();
    const { user } = renderApp('/accounting-categories', { session: adminSession() });
    const f = await form();
    const amount = await f.findByLabelText('Receipt required from $');
    await user.clear(amount);
    await user.type(amount, '80');
    await user.click(f.getByRole('button', { name: 'Save close policy' }));
    expect(await f.findByText(/^Saved\. Receipts required from \$80\.00/)).toBeInTheDocument();
    await user.clear(amount);
    await user.type(amount, '90');
    await user.click(f.getByRole('button', { name: 'Save close policy' }));
    expect(await f.findByText(/^Saved\. Receipts required from \$90\.00/)).toBeInTheDocument();
    expect(sent.map((s) => (s as { version: number }).version)).toEqual([0, 1]);
  });
});
