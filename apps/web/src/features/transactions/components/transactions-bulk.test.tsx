import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { accountingCategories, financeSession, subAccounts } from '../../../test/fixtures';
import { renderApp } from '../../../test/render-app';
import { indexRow, listNotes, serveIndex } from '../../../test/serve-index';
import { serveAttention, serveBulkNotes } from '../../../test/serve-notes';
import { apiError, requestsTo, serve, server } from '../../../test/server';

const BULK = '/api/transactions/notes';

/** Five unreviewed transactions over two sub accounts (the same id in both), one reviewed. */
function rows() {
  const day = (n: number) => `2026-03-0${n}T15:00:00.000Z`;
  return [
    indexRow({ id: 'tx_1', date: day(9), description: 'Coffee beans' }),
    indexRow({ id: 'tx_2', date: day(8), description: 'Train to Boston' }),
    indexRow({ id: 'tx_1', subAccountId: 'sa_mkt', date: day(7), description: 'Ad spend' }),
    indexRow({ id: 'tx_4', date: day(6), description: 'Hotel night' }),
    indexRow({
      id: 'tx_5',
      date: day(5),
      description: 'Team lunch',
      notes: listNotes({ memo: '', categoryId: 'cat_meals', tags: [], reviewed: true }),
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
  serveBulkNotes(list);
  return list;
}

const box = (description: string) =>
  screen.getByRole('checkbox', { name: new RegExp(`^Select ${description},`) });
const bar = () => screen.getByRole('region', { name: /selected$/ });
const bodies = async () =>
  Promise.all(requestsTo(BULK, 'POST').map((r) => r.clone().json() as Promise<unknown>));

describe('transactions: a selection changes its notes together', { timeout: 15_000 }, () => {
  it('rows are chosen by their checkbox (Space, a click, shift for a range, all shown) without opening them', async () => {
    serveScreen();
    const { user, router } = renderApp('/transactions', { session: financeSession() });
    await screen.findByRole('row', { name: /Coffee beans/ });
    expect(screen.queryByRole('region', { name: /selected$/ })).toBeNull();

    // By keyboard; the actions are a few Shift+Tabs away, before the rows (drawn after them).
    box('Coffee beans').focus();
    await user.keyboard(' ');
    expect(box('Coffee beans')).toBeChecked();
    expect(bar()).toHaveAccessibleName('1 selected');
    // Back past the header's sort buttons, "select all" and the table's scroll region.
    for (let i = 0; i < 5; i++) await user.tab({ shift: true });
    expect(within(bar()).getByRole('button', { name: 'Reopen' })).toHaveFocus();
    // The checkbox's label fills its cell: a click there chooses the row, and a click in the cell
    // never opens the transaction (as a click elsewhere on the row does).
    await user.click(box('Train to Boston').closest('label') as HTMLElement);
    expect(box('Train to Boston')).toBeChecked();
    await user.click(box('Train to Boston').closest('td') as HTMLElement);
    expect(router.state.location.pathname).toBe('/transactions');
    // Shift and a click: every row from the last one chosen.
    await user.keyboard('{Shift>}');
    await user.click(box('Hotel night'));
    await user.keyboard('{/Shift}');
    expect(box('Ad spend')).toBeChecked();
    expect(box('Hotel night')).toBeChecked();
    expect(box('Team lunch')).not.toBeChecked();
    expect(bar()).toHaveAccessibleName('4 selected');

    const all = screen.getByRole('checkbox', { name: 'Select all 5 shown' });
    expect(all).toHaveProperty('indeterminate', true);
    await user.click(all);
    expect(bar()).toHaveAccessibleName('5 selected');
    expect(all).toBeChecked();
    await user.click(all);
    expect(screen.queryByRole('region', { name: /selected$/ })).toBeNull();

    // Another list starts with nothing chosen.
    await user.click(box('Coffee beans'));
    await user.selectOptions(screen.getByLabelText('Review'), 'unreviewed');
    await waitFor(() => expect(screen.queryByRole('row', { name: /Team lunch/ })).toBeNull());
    expect(box('Coffee beans')).not.toBeChecked();
    expect(screen.queryByRole('region', { name: /selected$/ })).toBeNull();
  });

  it('writes a long category out whole below its field before it is set, a short one not', async () => {
    serveScreen();
    const long = {
      id: 'cat_intl',
      code: '6100-200-TRAVEL-INTL',
      name: 'Travel and entertainment — international conferences, lodging and ground transport',
      archived: false,
    };
    server.use(
      serve('accountingCategories.list', () =>
        HttpResponse.json({ items: [...accountingCategories, long] }),
      ),
    );
    const { user } = renderApp('/transactions', { session: financeSession() });
    await screen.findByRole('row', { name: /Coffee beans/ });
    await user.click(box('Coffee beans'));
    const category = within(bar()).getByLabelText('Accounting category');
    await user.selectOptions(category, '6200 Travel');
    expect(bar().querySelector('.bulk-choice')).toBeNull();
    await user.selectOptions(category, `${long.code} ${long.name}`);
    expect(within(bar()).getByText(`${long.code} ${long.name}`, { selector: 'p' })).toBeVisible();
    expect(requestsTo(BULK, 'POST')).toHaveLength(0);
  });

  it('sets the category of the selection, each row named by its sub account, and says what was skipped and why', async () => {
    const list = serveScreen();
    const { user } = renderApp('/transactions', { session: financeSession() });
    await screen.findByRole('row', { name: /Coffee beans/ });
    for (const d of ['Coffee beans', 'Ad spend', 'Team lunch']) await user.click(box(d));

    const category = within(bar()).getByLabelText('Accounting category');
    // The archived category is not offered.
    expect(within(category).queryByRole('option', { name: /Old software/ })).toBeNull();
    await user.click(within(bar()).getByRole('button', { name: 'Set category' }));
    expect(category).toHaveAccessibleDescription('Choose a category, or “No category”.');
    expect(requestsTo(BULK, 'POST')).toHaveLength(0);

    await user.selectOptions(category, '6200 Travel');
    await user.click(within(bar()).getByRole('button', { name: 'Set category' }));
    const status = await screen.findByText(
      'Booked to 6200 Travel: 2 changed, 1 skipped: reviewed — reopen them first.',
    );
    expect(status.closest('[role="status"]')).not.toBeNull();
    expect(await bodies()).toEqual([
      {
        items: [
          { subAccountId: 'sa_ops', id: 'tx_1' },
          { subAccountId: 'sa_mkt', id: 'tx_1' },
          { subAccountId: 'sa_ops', id: 'tx_5' },
        ],
        categoryId: 'cat_travel',
      },
    ]);
    // The list is asked for again and shows the new codes; the reviewed row kept its own.
    const coffee = screen.getByRole('row', { name: /Coffee beans/ });
    await waitFor(() => expect(coffee.querySelector('td.col-notes')).toHaveTextContent('6200'));
    const lunch = screen.getByRole('row', { name: /Team lunch/ });
    expect(lunch.querySelector('td.col-notes')).toHaveTextContent('6100');
    expect(list[2]?.notes?.categoryId).toBe('cat_travel');
    // The selection stays for the next change.
    expect(bar()).toHaveAccessibleName('3 selected');
  });

  it('adds tags (checked as the notes check them) and reopens', async () => {
    serveScreen();
    const { user } = renderApp('/transactions', { session: financeSession() });
    await screen.findByRole('row', { name: /Coffee beans/ });
    await user.click(box('Team lunch'));
    await user.click(box('Hotel night'));
    const tags = within(bar()).getByLabelText('Tags to add');
    await user.type(tags, `trip, ${'x'.repeat(41)}{Enter}`);
    expect(tags).toHaveAccessibleDescription(/at most 40 characters/);
    expect(requestsTo(BULK, 'POST')).toHaveLength(0);

    await user.click(within(bar()).getByRole('button', { name: 'Reopen' }));
    await screen.findByText('Reopened: 2 changed.');
    await user.clear(tags);
    await user.type(tags, 'trip, Boston');
    await user.click(within(bar()).getByRole('button', { name: 'Add tags' }));
    await screen.findByText('Tagged trip, Boston: 2 changed.');
    expect(tags).toHaveValue('');
    expect((await bodies()).slice(-2)).toEqual([
      {
        items: [
          { subAccountId: 'sa_ops', id: 'tx_4' },
          { subAccountId: 'sa_ops', id: 'tx_5' },
        ],
        reviewed: false,
      },
      {
        items: [
          { subAccountId: 'sa_ops', id: 'tx_4' },
          { subAccountId: 'sa_ops', id: 'tx_5' },
        ],
        addTags: ['trip', 'Boston'],
      },
    ]);
    const hotel = screen.getByRole('row', { name: /Hotel night/ });
    await waitFor(() =>
      expect(hotel.querySelector('td.col-notes')).toHaveTextContent('Tags: trip, Boston'),
    );
  });

  it('a pasted memo is kept whole: its lines are sent, and one too long is said and not sent, never cut', async () => {
    serveScreen();
    const { user } = renderApp('/transactions', { session: financeSession() });
    await screen.findByRole('row', { name: /Coffee beans/ });
    await user.click(box('Coffee beans'));
    const memo = within(bar()).getByLabelText('Memo');
    const long = ['Approved by Dana', 'x'.repeat(2_500), 'Trip to Boston'].join('\n');
    await user.click(memo);
    await user.paste(long);
    expect(memo).toHaveValue(long);
    await user.click(within(bar()).getByRole('button', { name: 'Write memo' }));
    expect(memo).toHaveAccessibleDescription(
      `The memo is ${long.length.toLocaleString('en-US')} characters long; shorten it to 2,000 or fewer.`,
    );
    expect(requestsTo(BULK, 'POST')).toHaveLength(0);

    await user.clear(memo);
    await user.paste('Approved by Dana\nTrip to Boston');
    await user.click(within(bar()).getByRole('button', { name: 'Write memo' }));
    await screen.findByText('Memo added: 1 changed.');
    expect(await bodies()).toEqual([
      {
        items: [{ subAccountId: 'sa_ops', id: 'tx_1' }],
        memo: { text: 'Approved by Dana\nTrip to Boston', mode: 'append' },
      },
    ]);
  });

  it('marked reviewed in the list of the unreviewed, the rows leave it, and the focus goes to the result', async () => {
    serveScreen();
    // Over March: a list of every day is counted over the month close's days (today's).
    const { user } = renderApp('/transactions?review=unreviewed&from=2026-03-01&to=2026-03-31', {
      session: financeSession(),
    });
    await screen.findByRole('row', { name: /Coffee beans/ });
    await user.click(box('Coffee beans'));
    await user.click(box('Train to Boston'));
    await user.click(within(bar()).getByRole('button', { name: 'Mark reviewed' }));
    const result = await screen.findByText('Marked reviewed: 2 changed.');
    await waitFor(() => expect(screen.queryByRole('row', { name: /Coffee beans/ })).toBeNull());
    expect(screen.queryByRole('row', { name: /Train to Boston/ })).toBeNull();
    expect(screen.queryByRole('region', { name: /selected$/ })).toBeNull();
    await waitFor(() => expect(result.closest('p')).toHaveFocus());
    // The month close's counts are asked for again with the list.
    const presets = screen.getByRole('group', { name: 'Needs attention' });
    await waitFor(() =>
      expect(within(presets).getByRole('button', { name: /^To review/ })).toHaveAccessibleName(
        'To review 2',
      ),
    );
    await user.click(screen.getByRole('button', { name: 'Dismiss' }));
    expect(screen.queryByText('Marked reviewed: 2 changed.')).toBeNull();
  });

  it('says what became of a change answered after the list refreshed without the chosen rows', async () => {
    const list = serveScreen();
    const { user, queryClient } = renderApp(
      '/transactions?review=unreviewed&from=2026-03-01&to=2026-03-31',
      { session: financeSession() },
    );
    await screen.findByRole('row', { name: /Coffee beans/ });
    let answer!: () => void;
    const held = new Promise<void>((resolve) => {
      answer = resolve;
    });
    let asked!: () => void;
    const arrived = new Promise<void>((resolve) => {
      asked = resolve;
    });
    // Held until the list has refreshed; then the change itself (serveBulkNotes') answers.
    server.use(
      serve('notes.updateMany', async () => {
        asked();
        await held;
        return undefined;
      }),
    );
    await user.click(box('Coffee beans'));
    await user.click(box('Train to Boston'));
    await user.click(within(bar()).getByRole('button', { name: 'Mark reviewed' }));
    await arrived;
    // Reviewed meanwhile (the change committed, its answer not yet read): the list asked again
    // no longer holds them, and the bar goes with the selection.
    for (const row of list.slice(0, 2)) {
      row.notes = listNotes({ memo: '', categoryId: null, tags: [], reviewed: true });
    }
    await queryClient.invalidateQueries();
    await waitFor(() => expect(screen.queryByRole('row', { name: /Coffee beans/ })).toBeNull());
    await waitFor(() => expect(screen.queryByRole('region', { name: /selected$/ })).toBeNull());
    answer();
    expect(await screen.findByText('Marked reviewed: 2 changed.')).toBeVisible();
  });

  it('a refused change says why, and the list is asked for again', async () => {
    serveScreen();
    const { user } = renderApp('/transactions', { session: financeSession() });
    await screen.findByRole('row', { name: /Coffee beans/ });
    server.use(
      serve('notes.updateMany', () =>
        apiError(503, 'store_unavailable', 'The notes store is down.'),
      ),
    );
    const before = requestsTo('/api/index/transactions').length;
    await user.click(box('Coffee beans'));
    fireEvent.click(within(bar()).getByRole('button', { name: 'Mark reviewed' }));
    const said = await screen.findByText(/^Marked reviewed failed: The notes store is down\./);
    expect(said.closest('p')).toHaveClass('form-error');
    await waitFor(() =>
      expect(requestsTo('/api/index/transactions').length).toBeGreaterThan(before),
    );
    expect(box('Coffee beans')).toBeChecked();
  });
});
