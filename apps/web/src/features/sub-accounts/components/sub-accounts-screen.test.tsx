import type { SubAccountPage } from '@card-console/shared/api/sub-accounts';
import { subAccountCreateBodySchema } from '@card-console/shared/api/sub-accounts';
import { screen, within } from '@testing-library/react';
import { delay, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { adminSession, financeSession, subAccounts } from '../../../test/fixtures';
import { renderApp } from '../../../test/render-app';
import { apiError, requestsTo, sentRequests, serve, server } from '../../../test/server';

const page = (items = subAccounts): SubAccountPage => ({ items });

describe('sub accounts screen', () => {
  it('shows loading, then every sub account with balance, card spend and totals, saying what each includes', async () => {
    server.use(
      serve('subAccounts.list', async () => {
        await delay(400);
        return HttpResponse.json(page());
      }),
    );
    renderApp('/sub-accounts', { session: financeSession() });
    expect(await screen.findByText('Loading…')).toBeInTheDocument();
    const ops = await screen.findByRole('row', { name: /Operations/ });
    expect(within(ops).getByText('$12,345.67')).toBeInTheDocument();
    expect(within(ops).getByText('$2,500.00')).toBeInTheDocument();
    expect(screen.getByTestId('total-balance')).toHaveTextContent('$17,345.67');
    expect(screen.getByTestId('total-spend')).toHaveTextContent('$3,499.99');
    // The service's spend is card spend (docs/money.md), named so and saying what it includes.
    expect(screen.getByRole('columnheader', { name: 'Card spend' })).toBeInTheDocument();
    expect(
      screen.getByText(/Card spend: settled, pending and disputed card charges, less refunds\./),
    ).toBeInTheDocument();
    expect(within(ops).getByRole('link', { name: /Transactions of Operations/ })).toHaveAttribute(
      'href',
      '/transactions?subAccountId=sa_ops',
    );
    // Every call carried the CSRF header the BFF requires.
    expect(sentRequests.length).toBeGreaterThan(0);
    for (const r of sentRequests) expect(r.headers.get('x-csrf')).toBe('1');
  });

  it('follows the cursor so totals cover every page', async () => {
    server.use(
      serve('subAccounts.list', ({ request }) => {
        const cursor = new URL(request.url).searchParams.get('cursor');
        return HttpResponse.json<SubAccountPage>(
          cursor === 'p2'
            ? { items: subAccounts.slice(1) }
            : { items: subAccounts.slice(0, 1), nextCursor: 'p2' },
        );
      }),
    );
    renderApp('/sub-accounts', { session: financeSession() });
    expect(await screen.findByRole('row', { name: /Marketing/ })).toBeInTheDocument();
    expect(screen.getByTestId('total-balance')).toHaveTextContent('$17,345.67');
  });

  it("totals every sub account of a list of many pages (as the Overview's balance does), never the first pages'", async () => {
    // The card service chooses its page size (the contract does not say): 60 pages of one.
    const pages = 60;
    server.use(
      serve('subAccounts.list', ({ request }) => {
        const n = Number(new URL(request.url).searchParams.get('cursor') ?? 0);
        return HttpResponse.json<SubAccountPage>({
          items: [{ id: `sa_${n}`, name: `Account ${n}`, balanceCents: 10_000, spendCents: 100 }],
          ...(n + 1 < pages ? { nextCursor: String(n + 1) } : {}),
        });
      }),
    );
    renderApp('/sub-accounts', { session: financeSession() });
    expect(await screen.findByRole('row', { name: /Account 59/ })).toBeInTheDocument();
    expect(screen.getByRole('rowheader', { name: 'Total (60)' })).toBeInTheDocument();
    expect(screen.getByTestId('total-balance')).toHaveTextContent('$6,000.00');
    expect(screen.getByTestId('total-spend')).toHaveTextContent('$60.00');
  });

  it('a list that never ends is an error saying so, never a total of the pages read', async () => {
    server.use(
      serve('subAccounts.list', ({ request }) => {
        const n = Number(new URL(request.url).searchParams.get('cursor') ?? 0);
        return HttpResponse.json<SubAccountPage>({
          items: [{ id: `sa_${n}`, name: `Account ${n}`, balanceCents: 10_000, spendCents: 100 }],
          nextCursor: String(n + 1),
        });
      }),
    );
    renderApp('/sub-accounts', { session: financeSession() });
    expect(await screen.findByRole('alert', {}, { timeout: 15_000 })).toHaveTextContent(
      'The card service listed sub accounts past 400 pages',
    );
    expect(screen.queryByTestId('total-balance')).not.toBeInTheDocument();
  }, 30_000);

  it('shows no total where a sub account has no figure, and says why, rather than counting it as $0', async () => {
    const [ops, ...rest] = subAccounts;
    if (!ops) throw new Error('no fixture');
    const { balanceCents: _unknown, ...withoutBalance } = ops;
    server.use(serve('subAccounts.list', () => HttpResponse.json(page([withoutBalance, ...rest]))));
    renderApp('/sub-accounts', { session: financeSession() });
    const row = await screen.findByRole('row', { name: /Operations/ });
    expect(within(row).getAllByText('—')).toHaveLength(1);
    expect(screen.getByTestId('total-balance')).toHaveTextContent('—');
    expect(screen.getByTestId('total-spend')).toHaveTextContent('$3,499.99');
    expect(screen.getByRole('note')).toHaveTextContent(
      `No total where a sub account has no figure (balance: 1 of ${subAccounts.length})`,
    );
  });

  it('says so when there are none', async () => {
    server.use(serve('subAccounts.list', () => HttpResponse.json(page([]))));
    renderApp('/sub-accounts', { session: financeSession() });
    expect(await screen.findByText('No sub accounts yet.')).toBeInTheDocument();
  });

  it('shows the error with its request id, and Retry loads the list', async () => {
    let fail = true;
    server.use(
      serve('subAccounts.list', () =>
        fail
          ? apiError(502, 'upstream_unavailable', 'The card service did not answer.')
          : HttpResponse.json(page()),
      ),
    );
    const { user } = renderApp('/sub-accounts', { session: financeSession() });
    expect(await screen.findByText('The card service did not answer.')).toBeInTheDocument();
    expect(screen.getByText('req-upstream_unavailable')).toBeInTheDocument();
    fail = false;
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByRole('row', { name: /Operations/ })).toBeInTheDocument();
  });

  it('hides "Create sub account" from finance', async () => {
    server.use(serve('subAccounts.list', () => HttpResponse.json(page())));
    renderApp('/sub-accounts', { session: financeSession() });
    await screen.findByRole('row', { name: /Operations/ });
    expect(screen.queryByRole('button', { name: 'Create sub account' })).not.toBeInTheDocument();
  });

  it('lets an admin create one in a dialog, checking the name first', async () => {
    const created: unknown[] = [];
    let items = [...subAccounts];
    server.use(
      serve('subAccounts.list', () => HttpResponse.json(page(items))),
      serve('subAccounts.create', async ({ request }) => {
        const body = subAccountCreateBodySchema.parse(await request.json());
        created.push(body);
        items = [...items, { id: 'sa_new', name: body.name, balanceCents: 0, spendCents: 0 }];
        return HttpResponse.json({ id: 'sa_new', name: body.name }, { status: 201 });
      }),
    );
    const { user } = renderApp('/sub-accounts', { session: adminSession() });
    await user.click(await screen.findByRole('button', { name: 'Create sub account' }));
    const dialog = screen.getByRole('dialog', { name: 'Create sub account' });
    await user.click(within(dialog).getByRole('button', { name: 'Create' }));
    expect(within(dialog).getByRole('alert')).toHaveTextContent('Enter a name.');
    expect(requestsTo('/api/sub-accounts', 'POST')).toHaveLength(0);

    // A name that would show as something else is refused before it is sent.
    await user.type(within(dialog).getByLabelText('Name'), 'Travel\u202Elevart');
    await user.click(within(dialog).getByRole('button', { name: 'Create' }));
    expect(within(dialog).getByRole('alert')).toHaveTextContent('text-direction');
    await user.clear(within(dialog).getByLabelText('Name'));
    expect(requestsTo('/api/sub-accounts', 'POST')).toHaveLength(0);

    // A pasted name too long is kept whole and said, never cut to fit and sent.
    const long = 'Ab'.repeat(76);
    await user.click(within(dialog).getByLabelText('Name'));
    await user.paste(long);
    expect(within(dialog).getByLabelText('Name')).toHaveValue(long);
    await user.click(within(dialog).getByRole('button', { name: 'Create' }));
    expect(within(dialog).getByRole('alert')).toHaveTextContent('Use at most 100 characters.');
    await user.clear(within(dialog).getByLabelText('Name'));
    expect(requestsTo('/api/sub-accounts', 'POST')).toHaveLength(0);

    await user.type(within(dialog).getByLabelText('Name'), '  Travel  ');
    await user.click(within(dialog).getByRole('button', { name: 'Create' }));
    expect(await screen.findByRole('row', { name: /Travel/ })).toBeInTheDocument();
    expect(created).toEqual([{ name: 'Travel' }]);
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(screen.getByRole('status')).toHaveTextContent('Created sub account “Travel”');
  });

  it("shows the server's refusal inside the dialog", async () => {
    server.use(
      serve('subAccounts.list', () => HttpResponse.json(page())),
      serve('subAccounts.create', () =>
        apiError(400, 'invalid_body', 'name: a sub account with this name exists'),
      ),
    );
    const { user } = renderApp('/sub-accounts', { session: adminSession() });
    await user.click(await screen.findByRole('button', { name: 'Create sub account' }));
    const dialog = screen.getByRole('dialog');
    await user.type(within(dialog).getByLabelText('Name'), 'Operations');
    await user.click(within(dialog).getByRole('button', { name: 'Create' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(
      'a sub account with this name exists',
    );
  });

  it('a name already taken (409) is said under the name field, which keeps what was typed', async () => {
    const message = 'A sub account named “Operations” already exists. Choose another name.';
    server.use(
      serve('subAccounts.list', () => HttpResponse.json(page())),
      serve('subAccounts.create', () => apiError(409, 'sub_account_name_taken', message)),
    );
    const { user } = renderApp('/sub-accounts', { session: adminSession() });
    await user.click(await screen.findByRole('button', { name: 'Create sub account' }));
    const dialog = screen.getByRole('dialog');
    const name = within(dialog).getByLabelText('Name');
    await user.type(name, 'operations');
    await user.click(within(dialog).getByRole('button', { name: 'Create' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(message);
    expect(name).toHaveValue('operations');
    expect(name).toHaveAttribute('aria-invalid', 'true');
    expect(name).toHaveAccessibleDescription(message);
    expect(name).toHaveFocus();
    // Typing a new name clears the refusal, which was about the old one.
    await user.type(name, ' team');
    expect(within(dialog).queryByRole('alert')).not.toBeInTheDocument();
    expect(name).not.toHaveAttribute('aria-invalid');
  });

  it('a 100-character name is whole in its cell (it wraps there) and in its links', async () => {
    const long = 'M'.repeat(100);
    server.use(
      serve('subAccounts.list', () =>
        HttpResponse.json(page([{ ...subAccounts[0], id: 'sa_long', name: long }])),
      ),
    );
    renderApp('/sub-accounts', { session: financeSession() });
    const row = await screen.findByRole('row', { name: new RegExp(long) });
    const cell = within(row).getByRole('rowheader');
    expect(cell).toHaveTextContent(long);
    expect(cell).toHaveClass('long-text');
    expect(within(row).getByRole('link', { name: `Transactions of ${long}` })).toBeInTheDocument();
  });
});
