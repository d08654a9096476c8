import {
  type NotesMatchingResult,
  notesMatchingChangeSchema,
} from '@card-console/shared/api/notes-matching';
import { screen, within } from '@testing-library/react';
import { HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { accountingCategories, financeSession, subAccounts } from '../../../test/fixtures';
import { renderApp } from '../../../test/render-app';
import { indexRow, listNotes, matches, serveIndex } from '../../../test/serve-index';
import { serveAttention } from '../../../test/serve-notes';
import { apiError, requestsTo, serve, server } from '../../../test/server';

const MATCHING = '/api/transactions/notes/matching';

/** Seven transactions, one reviewed; the list shows three at a time. */
function rows() {
  const day = (n: number) => `2026-03-0${n}T15:00:00.000Z`;
  return [1, 2, 3, 4, 5, 6, 7].map((n) =>
    indexRow({
      id: `tx_${n}`,
      date: day(n),
      description: `Purchase ${n}`,
      ...(n === 4
        ? { notes: listNotes({ memo: '', categoryId: null, tags: [], reviewed: true }) }
        : {}),
    }),
  );
}

/** The BFF's change of every matching row, over the fake index's rows (which it changes). */
function serveMatching(list: ReturnType<typeof rows>) {
  server.use(
    serve('notes.updateMatching', async ({ request }) => {
      const body = notesMatchingChangeSchema.parse(await request.json());
      const found = list.filter((t) => matches(t, body.filter));
      // The rows themselves stand for the BFF's digest of them.
      const matchingDigest = found
        .map((t) => t.id)
        .sort()
        .join('-');
      if (
        !body.preview &&
        body.matchingDigest !== undefined &&
        body.matchingDigest !== matchingDigest
      ) {
        return apiError(409, 'matching_changed', 'The transactions this filter gives changed.');
      }
      let changed = 0;
      let reviewed = 0;
      for (const t of found) {
        if (t.notes?.reviewed) {
          reviewed++;
          continue;
        }
        changed++;
        if (body.preview) continue;
        const notes =
          t.notes ?? listNotes({ memo: '', categoryId: null, tags: [], reviewed: false });
        t.notes = {
          ...notes,
          tags: [...notes.tags, ...(body.addTags ?? [])],
          reviewed: body.reviewed ?? notes.reviewed,
        };
      }
      const answer: NotesMatchingResult = {
        preview: body.preview === true,
        matching: found.length,
        matchingDigest,
        changed,
        skipped: reviewed ? [{ reason: 'reviewed', count: reviewed }] : [],
      };
      return HttpResponse.json(answer);
    }),
  );
}

/**
 * The transactions screen at `path` over `rows()`, three at a time, the sub accounts served and,
 * unless `categories` is false, the accounting categories; the rows shown selected. The rows,
 * the user and the selection bar.
 */
async function selectShown(path: string, { categories = true } = {}) {
  const list = rows();
  server.use(serve('subAccounts.list', () => HttpResponse.json({ items: subAccounts })));
  if (categories) {
    server.use(
      serve('accountingCategories.list', () => HttpResponse.json({ items: accountingCategories })),
    );
  }
  serveIndex(list, { pageSize: 3 });
  serveAttention(list);
  serveMatching(list);
  const { user } = renderApp(path, { session: financeSession() });
  await screen.findByRole('row', { name: /Purchase 7/ });
  await screen.findByText(/7 transactions/);
  await user.click(screen.getByRole('checkbox', { name: 'Select all 3 shown' }));
  const bar = () => screen.getByRole('region', { name: /selected$/ });
  return { list, user, bar };
}

describe('transactions: a change of every matching transaction', { timeout: 15_000 }, () => {
  it('selects all matching past the rows shown, says how many will change, and changes them once confirmed', async () => {
    const { list, user, bar } = await selectShown('/transactions?status=settled');
    expect(bar()).toHaveAccessibleName('3 selected');
    await user.click(within(bar()).getByRole('button', { name: 'Select all 7 matching' }));
    expect(bar()).toHaveAccessibleName('All 7 matching selected');

    await user.type(within(bar()).getByLabelText('Tags to add'), 'close-mar{Enter}');
    const confirm = await within(bar()).findByRole('alertdialog');
    expect(confirm).toHaveTextContent(
      'Tagged close-mar — 6 of 7 transactions will change; 1 skipped: reviewed — reopen them first.',
    );
    const sent = async () =>
      Promise.all(requestsTo(MATCHING, 'POST').map((r) => r.clone().json() as Promise<unknown>));
    expect(await sent()).toEqual([
      { filter: { status: ['settled'] }, addTags: ['close-mar'], preview: true },
    ]);
    // Nothing changed yet.
    expect(list.filter((t) => t.notes?.tags.includes('close-mar'))).toEqual([]);

    await user.click(within(confirm).getByRole('button', { name: 'Change 6 transactions' }));
    expect(
      await screen.findByText(
        'Tagged close-mar: 6 changed, 1 skipped: reviewed — reopen them first.',
      ),
    ).toBeInTheDocument();
    // The rows counted, named: a set that changed meanwhile would be refused (below).
    expect((await sent())[1]).toEqual({
      filter: { status: ['settled'] },
      addTags: ['close-mar'],
      matchingDigest: 'tx_1-tx_2-tx_3-tx_4-tx_5-tx_6-tx_7',
    });
    expect(list.filter((t) => t.notes?.tags.includes('close-mar')).map((t) => t.id)).toEqual([
      'tx_1',
      'tx_2',
      'tx_3',
      'tx_5',
      'tx_6',
      'tx_7',
    ]);
    // The selection ends with the change.
    expect(screen.queryByRole('region', { name: /selected$/ })).toBeNull();
  });

  it('Cancel leaves every row as it was; choosing a row again ends "all matching"', async () => {
    const { list, user, bar } = await selectShown('/transactions', { categories: false });
    await user.click(within(bar()).getByRole('button', { name: 'Select all 7 matching' }));
    await user.click(within(bar()).getByRole('button', { name: 'Mark reviewed' }));
    const confirm = await within(bar()).findByRole('alertdialog');
    await user.click(within(confirm).getByRole('button', { name: 'Cancel' }));
    expect(requestsTo(MATCHING, 'POST')).toHaveLength(1);
    expect(list.filter((t) => t.notes?.reviewed).map((t) => t.id)).toEqual(['tx_4']);
    await user.click(screen.getByRole('checkbox', { name: /^Select Purchase 7,/ }));
    expect(bar()).toHaveAccessibleName('2 selected');
  });

  it('changes only the rows it counted: when the filter gives others by the confirmation, nothing changes and they are counted again', async () => {
    const { list, user, bar } = await selectShown('/transactions?status=settled');
    await user.click(within(bar()).getByRole('button', { name: 'Select all 7 matching' }));
    await user.type(within(bar()).getByLabelText('Tags to add'), 'close-mar{Enter}');
    const confirm = await within(bar()).findByRole('alertdialog');
    expect(confirm).toHaveTextContent('6 of 7 transactions will change');

    // A sync brings an eighth settled row before the person confirms.
    list.push(
      indexRow({ id: 'tx_8', date: '2026-03-08T15:00:00.000Z', description: 'Purchase 8' }),
    );
    await user.click(within(confirm).getByRole('button', { name: 'Change 6 transactions' }));
    const again = await within(bar()).findByText(/changed after they were counted/);
    expect(again.closest('[role="alertdialog"]')).toHaveTextContent(
      'The matching transactions changed after they were counted, so nothing was changed. Counted again: Tagged close-mar — 7 of 8 transactions will change',
    );
    expect(list.filter((t) => t.notes?.tags.includes('close-mar'))).toEqual([]);
    await user.click(within(bar()).getByRole('button', { name: 'Change 7 transactions' }));
    expect(
      await screen.findByText(
        'Tagged close-mar: 7 changed, 1 skipped: reviewed — reopen them first.',
      ),
    ).toBeInTheDocument();
    expect(list.filter((t) => t.notes?.tags.includes('close-mar'))).toHaveLength(7);
  });
});
