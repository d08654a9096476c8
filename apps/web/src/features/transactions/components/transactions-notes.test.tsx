import { screen, waitFor, within } from '@testing-library/react';
import { HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { accountingCategories, financeSession, subAccounts } from '../../../test/fixtures';
import { renderApp } from '../../../test/render-app';
import { indexRow, listNotes, queryOf, serveIndex } from '../../../test/serve-index';
import { serveAttention } from '../../../test/serve-notes';
import { requestsTo, serve, server } from '../../../test/server';
import { inTimeZone } from '../../../test/time-zone';

inTimeZone('America/New_York');

const LIST = '/api/index/transactions';
const lastListQuery = () => queryOf(requestsTo(LIST).at(-1)?.url ?? 'http://x/');

function rows() {
  return [
    indexRow({
      notes: listNotes({
        memo: 'Team coffee for the offsite',
        categoryId: 'cat_meals',
        tags: ['offsite'],
        reviewed: true,
      }),
    }),
    indexRow({
      id: 'tx_2',
      date: '2026-03-05T12:00:00.000Z',
      description: 'Refund for chairs',
      amountCents: 4_999,
      status: 'refund',
      merchant: undefined,
    }),
    indexRow({
      id: 'tx_3',
      subAccountId: 'sa_mkt',
      date: '2026-03-04T12:00:00.000Z',
      description: 'Design tool',
      amountCents: -30_000,
      notes: listNotes({ memo: '', categoryId: 'cat_travel', tags: ['Q3'], reviewed: false }),
    }),
    indexRow({
      id: 'tx_4',
      subAccountId: 'sa_mkt',
      date: '2026-03-03T12:00:00.000Z',
      description: 'Blocked purchase',
      amountCents: -9_900,
      status: 'declined',
    }),
  ];
}

function serveScreen(list = rows()) {
  server.use(
    serve('subAccounts.list', () => HttpResponse.json({ items: subAccounts })),
    serve('accountingCategories.list', () => HttpResponse.json({ items: accountingCategories })),
  );
  serveIndex(list);
  serveAttention(list);
  return list;
}

const shown = () =>
  screen
    .getAllByRole('row')
    .slice(1)
    .map((row) => row.querySelector('td.col-description a')?.textContent);

describe('transactions: notes', { timeout: 15_000 }, () => {
  it("shows each row's notes as marks: the category's code (named in full in its tooltip), reviewed, the memo and tags as words", async () => {
    serveScreen();
    renderApp('/transactions', { session: financeSession() });
    const coffee = await screen.findByRole('row', { name: /Coffee beans/ });
    const notes = coffee.querySelector('td.col-notes') as HTMLElement;
    const code = await within(notes).findByText('6100');
    expect(code.closest('.account-code')).toHaveAttribute('title', '6100 Meals');
    expect(notes).toHaveTextContent(
      'Accounting category 6100✓ReviewedMemo: Team coffee for the offsite#1Tags: offsite',
    );
    expect(within(notes).getByTitle('Team coffee for the offsite')).toBeInTheDocument();
    // Not reviewed, no memo: only its code and tag.
    const design = screen.getByRole('row', { name: /Design tool/ });
    expect(design.querySelector('td.col-notes')).toHaveTextContent(
      /^Accounting category 6200#1Tags: Q3$/,
    );
    // No notes at all.
    const refund = screen.getByRole('row', { name: /Refund for chairs/ });
    expect(refund.querySelector('td.col-notes')).toHaveTextContent(/^—$/);
  });

  it('filters by review, accounting categories (or none) and tags: in the address, the query and removable chips', async () => {
    serveScreen();
    const { user, router } = renderApp('/transactions', { session: financeSession() });
    await screen.findByRole('row', { name: /Coffee beans/ });

    await user.selectOptions(screen.getByLabelText('Review'), 'unreviewed');
    await waitFor(() => expect(router.state.location.search).toEqual({ review: 'unreviewed' }));
    await waitFor(() =>
      expect(shown()).toEqual(['Refund for chairs', 'Design tool', 'Blocked purchase']),
    );
    expect(lastListQuery()).toEqual({ review: 'unreviewed' });

    const account = screen.getByLabelText('Accounting category');
    await user.selectOptions(account, 'No category');
    await user.selectOptions(account, '6200 Travel');
    await waitFor(() =>
      expect(router.state.location.search).toEqual({
        review: 'unreviewed',
        account: ['none', 'cat_travel'],
      }),
    );
    // Each chosen once: they are no longer offered.
    expect(within(account).queryByRole('option', { name: 'No category' })).toBeNull();
    expect(within(account).queryByRole('option', { name: '6200 Travel' })).toBeNull();
    expect(within(account).getByRole('option', { name: 'Add a category…' })).toBeInTheDocument();

    // A tag in another case finds it.
    await user.type(screen.getByLabelText('Tag'), 'q3{Enter}');
    await waitFor(() => expect(shown()).toEqual(['Design tool']));
    expect(lastListQuery()).toEqual({
      review: 'unreviewed',
      account: ['none', 'cat_travel'],
      tag: 'q3',
    });
    expect(screen.getByRole('button', { name: 'Filters (3 set)' })).toBeInTheDocument();

    const chips = screen.getByRole('list', { name: 'Filters set' });
    expect(
      within(chips)
        .getAllByRole('button', { name: /^Remove filter/ })
        .map((b) => b.textContent?.replace('×', '').trim()),
    ).toEqual([
      'Unreviewed',
      'Accounting category: No category',
      'Accounting category: 6200 Travel',
      'Tag: q3',
    ]);
    await user.click(within(chips).getByRole('button', { name: 'Remove filter Tag: q3' }));
    await waitFor(() =>
      expect(router.state.location.search).toEqual({
        review: 'unreviewed',
        account: ['none', 'cat_travel'],
      }),
    );
    await waitFor(() =>
      expect(shown()).toEqual(['Refund for chairs', 'Design tool', 'Blocked purchase']),
    );
    await user.click(within(chips).getByRole('button', { name: 'Clear filters' }));
    await waitFor(() => expect(router.state.location.search).toEqual({}));
  });

  it('a tag already filtered by, or one no transaction can have, is said under the field and not applied', async () => {
    serveScreen();
    const { user, router } = renderApp('/transactions?tag=offsite', {
      session: financeSession(),
    });
    await screen.findByRole('row', { name: /Coffee beans/ });
    const tag = screen.getByLabelText('Tag');
    await user.type(tag, 'OFFSITE{Enter}');
    expect(tag).toHaveAccessibleDescription('The list is already filtered by “OFFSITE”.');
    await user.clear(tag);
    await user.type(tag, `${'x'.repeat(41)}{Enter}`);
    expect(tag).toHaveAccessibleDescription(/at most 40 characters/);
    expect(router.state.location.search).toEqual({ tag: 'offsite' });
  });

  it("a link's notes values the screen cannot use are left out, and it says which", async () => {
    serveScreen();
    const { router } = renderApp(
      `/transactions?review=maybe&account=..&tag=${'x'.repeat(41)}&account=cat_meals`,
      { session: financeSession() },
    );
    await screen.findByRole('row', { name: /Coffee beans/ });
    await waitFor(() => expect(router.state.location.search).toEqual({ account: 'cat_meals' }));
    const notice = screen.getByText(/review “maybe”/).closest('.search-notice') as HTMLElement;
    expect(notice).toHaveTextContent("The link's review “maybe” isn't reviewed or unreviewed");
    expect(notice).toHaveTextContent("The link's tag “xxxxxxxx");
    expect(lastListQuery()).toEqual({ account: 'cat_meals' });
  });

  it("the month close presets count the list's days over every sub account, of the money that moved; one shows exactly its transactions, pressed again it clears", async () => {
    serveScreen();
    const { user, router } = renderApp(
      '/transactions?from=2026-03-01&to=2026-03-31&subAccountId=sa_ops&q=coffee&sort=amount',
      { session: financeSession() },
    );
    await screen.findByRole('row', { name: /Coffee beans/ });
    // Asked for each time: the screen may be drawn anew when the list changes.
    const presets = () => screen.getByRole('group', { name: 'Needs attention' });
    // Not reviewed: the refund and the design tool; the declined purchase moved no money.
    const toReview = await within(presets()).findByRole('button', { name: 'To review 2' });
    expect(toReview).toHaveAttribute('aria-pressed', 'false');
    expect(toReview).toHaveAccessibleDescription(
      '2 transactions to review (money that moved, not reviewed) from Mar 1, 2026 to Mar 31, 2026, every sub account',
    );
    expect(within(presets()).getByRole('button', { name: 'No category 1' })).toBeInTheDocument();
    // Apart, in the words of docs/money.md.
    expect(
      within(presets()).getByRole('button', { name: 'Declined (attempted) 1' }),
    ).toHaveAccessibleDescription(
      '1 transaction declined, canceled or failed (no money moved, not to review) from Mar 1, 2026 to Mar 31, 2026, every sub account',
    );
    // Asked for the list's days in the person's zone (March 8 moved New York to daylight time).
    const asked = requestsTo('/api/index/attention').map((r) => queryOf(r.url));
    expect(asked).toContainEqual({
      from: String(Date.UTC(2026, 2, 1, 5)),
      to: String(Date.UTC(2026, 3, 1, 4) - 1),
    });

    await user.click(toReview);
    // The days and the order stay; the sub account and the search go: the count is the list's,
    // of the money that moved or will (settled, refund, dispute, pending).
    await waitFor(() =>
      expect(router.state.location.search).toEqual({
        from: '2026-03-01',
        to: '2026-03-31',
        sort: 'amount',
        review: 'unreviewed',
        status: ['pending', 'settled', 'refund', 'dispute'],
      }),
    );
    await waitFor(() => expect(shown()).toEqual(['Design tool', 'Refund for chairs']));
    expect(screen.getByText('2 transactions')).toBeInTheDocument();
    const pressed = within(presets()).getByRole('button', { name: 'To review 2' });
    expect(pressed).toHaveAttribute('aria-pressed', 'true');
    await user.click(pressed);
    await waitFor(() =>
      expect(router.state.location.search).toEqual({
        from: '2026-03-01',
        to: '2026-03-31',
        sort: 'amount',
      }),
    );
  });
});
