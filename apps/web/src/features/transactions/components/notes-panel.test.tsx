import {
  distinctTags,
  type Notes,
  type NotesChange,
  notesChangeSchema,
} from '@card-console/shared/api/notes';
import { screen, waitFor, within } from '@testing-library/react';
import { HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import {
  accountingCategories,
  financeSession,
  transaction,
  transactionNotes,
} from '../../../test/fixtures';
import { renderApp } from '../../../test/render-app';
import { apiError, requestsTo, serve, server } from '../../../test/server';

const ME = 'finance@example.test';
const AT = '2026-03-06T09:00:00.000Z';

/**
 * The BFF's notes for tx_1, as it keeps them: a change names the version it was made on (409
 * `notes_changed` otherwise), a reviewed transaction takes no change of its notes unless
 * the change reopens it (409 `transaction_reviewed`). `meanwhile` is someone else's change,
 * saved just before this person's first one reaches the BFF.
 */
function serveNotes(start: Notes = transactionNotes(), meanwhile?: (a: Notes) => Notes) {
  let notes = start;
  const patches: NotesChange[] = [];
  server.use(
    serve('transactions.get', () => HttpResponse.json(transaction())),
    serve('accountingCategories.list', () => HttpResponse.json({ items: accountingCategories })),
    serve('notes.get', () => HttpResponse.json(notes)),
    serve('notes.update', async ({ request }) => {
      const change = notesChangeSchema.parse(await request.json());
      patches.push(change);
      if (patches.length === 1 && meanwhile) notes = meanwhile(notes);
      if (change.version !== notes.version) {
        return apiError(409, 'notes_changed', 'Someone else changed the notes.', {
          current: notes,
        });
      }
      const edits = ['memo', 'categoryId', 'tags'].some((k) => k in change);
      if (notes.review.state === 'reviewed' && edits && change.reviewed !== false) {
        return apiError(409, 'transaction_reviewed', 'Reviewed.', { current: notes });
      }
      notes = {
        ...notes,
        memo: change.memo ?? notes.memo,
        categoryId: change.categoryId === undefined ? notes.categoryId : change.categoryId,
        tags: change.tags ? distinctTags(change.tags) : notes.tags,
        review:
          change.reviewed === undefined
            ? notes.review
            : change.reviewed
              ? { state: 'reviewed', by: ME, at: AT }
              : { state: 'unreviewed' },
        version: notes.version + 1,
        updatedBy: ME,
        updatedAt: AT,
      };
      return HttpResponse.json(notes);
    }),
  );
  return { patches };
}

const open = () => renderApp('/transactions/tx_1', { session: financeSession() });
/** Whether leaving the page now would ask first (a `beforeunload` the page cancels). */
const leavingAsks = () => !window.dispatchEvent(new Event('beforeunload', { cancelable: true }));
/** The notes panel once loaded (or failed): the loading one is replaced by another. */
const notesPanel = async () => {
  await screen.findByRole('region', { name: 'Notes' }, { timeout: 3000 });
  await waitFor(() => expect(screen.queryByText('Loading notes…')).not.toBeInTheDocument());
  return within(screen.getByRole('region', { name: 'Notes' }));
};

const rowOf = (label: string) => {
  const table = screen.getByRole('table', { name: 'The notes now and your change' });
  const row = within(table).getByRole('rowheader', { name: label }).closest('tr') as HTMLElement;
  return within(row)
    .getAllByRole('cell')
    .map((cell) => cell.textContent);
};

describe('the notes of a transaction', () => {
  it('saves a memo, a category and tags on the version shown', async () => {
    const { patches } = serveNotes();
    const { user } = open();
    const panel = await notesPanel();
    await user.type(panel.getByLabelText('Memo'), 'Client dinner, Berlin');
    const category = panel.getByLabelText('Accounting category');
    // Typed ahead by name: the chart's matches; archived ones are not offered for a
    // transaction that does not have one.
    await user.type(category, 'soft');
    expect(panel.getByRole('listbox', { name: 'Accounting categories' })).toHaveTextContent(
      'No category matches “soft”.',
    );
    await user.clear(category);
    await user.type(category, 'mea{Enter}');
    expect(category).toHaveValue('6100 Meals');
    const tags = panel.getByLabelText('Tags');
    await user.type(tags, 'travel{Enter}q3,');
    await user.type(tags, 'oops{Enter}');
    await user.click(panel.getByRole('button', { name: 'Remove tag oops' }));
    expect(tags).toHaveFocus();
    // What is still typed in the tag field is a tag too: nothing typed is left behind.
    await user.type(tags, 'berlin');
    await user.click(panel.getByRole('button', { name: 'Save' }));

    expect(await panel.findByText('Notes saved.')).toBeInTheDocument();
    expect(patches).toEqual([
      {
        version: 0,
        memo: 'Client dinner, Berlin',
        categoryId: 'cat_meals',
        tags: ['travel', 'q3', 'berlin'],
      },
    ]);
    expect(panel.getByLabelText('Memo')).toHaveValue('Client dinner, Berlin');
    expect(
      within(panel.getByRole('list', { name: 'Tags on this transaction' }))
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(['travel×', 'q3×', 'berlin×']);
    expect(panel.getByText(new RegExp(`Last changed by ${ME}`))).toBeInTheDocument();

    // Saved again, the next change names the new version.
    await user.type(panel.getByLabelText('Memo'), '.');
    await user.click(panel.getByRole('button', { name: 'Save' }));
    await panel.findByText('Notes saved.');
    expect(patches[1]).toEqual({ version: 1, memo: 'Client dinner, Berlin.' });
  });

  it('what was typed and not saved is still there when the form is shown again', async () => {
    const { patches } = serveNotes();
    server.use(serve('subAccounts.list', () => HttpResponse.json({ items: [] })));
    const { user, router } = open();
    let panel = await notesPanel();
    await user.type(panel.getByLabelText('Memo'), 'Team dinner');
    await user.type(panel.getByLabelText('Tags'), 'q1');
    // Away and back: the screen, and its form, are made anew.
    await router.navigate({ to: '/sub-accounts' });
    await waitFor(() => expect(screen.queryByRole('region', { name: 'Notes' })).toBeNull());
    await router.navigate({
      to: '/transactions/$transactionId',
      params: { transactionId: 'tx_1' },
    });
    panel = await notesPanel();
    expect(panel.getByLabelText('Memo')).toHaveValue('Team dinner');
    expect(panel.getByLabelText('Tags')).toHaveValue('q1');
    expect(patches).toEqual([]);
    // Kept within the app, not by the page: leaving the page (closing, reloading) asks first.
    expect(leavingAsks()).toBe(true);
    // Once saved, a form made anew shows the notes as saved.
    await user.click(panel.getByRole('button', { name: 'Save' }));
    await panel.findByText('Notes saved.');
    expect(leavingAsks()).toBe(false);
    await router.navigate({ to: '/sub-accounts' });
    await waitFor(() => expect(screen.queryByRole('region', { name: 'Notes' })).toBeNull());
    await router.navigate({
      to: '/transactions/$transactionId',
      params: { transactionId: 'tx_1' },
    });
    panel = await notesPanel();
    expect(panel.getByLabelText('Memo')).toHaveValue('Team dinner');
    expect(panel.getByLabelText('Tags')).toHaveValue('');
    expect(panel.getByText('q1')).toBeInTheDocument();
    expect(patches).toHaveLength(1);
  });

  it('checks the memo and each tag as the BFF would, in plain words, and sends nothing', async () => {
    const { patches } = serveNotes();
    const { user } = open();
    const panel = await notesPanel();
    const tags = panel.getByLabelText('Tags');
    await user.type(tags, `${'x'.repeat(41)}{Enter}`);
    expect(tags).toHaveAccessibleDescription(/A tag can be at most 40 characters/);
    expect(tags).toHaveValue('x'.repeat(41));
    await user.clear(tags);
    await user.type(tags, 'Travel{Enter}travel{Enter}');
    expect(tags).toHaveAccessibleDescription(/“travel” is already a tag/);
    await user.clear(tags);

    const memo = panel.getByLabelText('Memo');
    await user.click(memo);
    await user.paste('m'.repeat(2001));
    await user.click(panel.getByRole('button', { name: 'Save' }));
    expect(memo).toHaveAccessibleDescription(/2,001 characters long; shorten it to 2,000 or fewer/);
    expect(memo).toHaveFocus();
    expect(memo).toHaveValue('m'.repeat(2001));
    expect(patches).toHaveLength(0);
  });

  it("shows the BFF's refusal (400) beside the form and keeps the text", async () => {
    serveNotes();
    server.use(
      serve('notes.update', () =>
        apiError(
          400,
          'invalid_body',
          'A memo or tag must not hold a card number. Remove it and save again.',
        ),
      ),
    );
    const { user } = open();
    const panel = await notesPanel();
    await user.type(panel.getByLabelText('Memo'), 'Card 4242 4242 4242 4242');
    await user.click(panel.getByRole('button', { name: 'Save' }));
    expect(await panel.findByRole('alert')).toHaveTextContent(
      'Your notes were not saved: A memo or tag must not hold a card number.',
    );
    expect(panel.getByLabelText('Memo')).toHaveValue('Card 4242 4242 4242 4242');
  });

  it('a category archived meanwhile is said under the category field; the memo stays', async () => {
    serveNotes();
    server.use(
      serve('notes.update', () =>
        apiError(
          409,
          'category_archived',
          'That accounting category has been archived. Choose another one.',
        ),
      ),
    );
    const { user } = open();
    const panel = await notesPanel();
    await user.type(panel.getByLabelText('Memo'), 'Team lunch');
    await user.type(panel.getByLabelText('Accounting category'), '6200{Enter}');
    await user.click(panel.getByRole('button', { name: 'Save' }));
    expect(await panel.findByText(/has been archived/)).toBeInTheDocument();
    expect(panel.getByLabelText('Accounting category')).toHaveAccessibleDescription(
      'That accounting category has been archived. Choose another one.',
    );
    expect(panel.getByLabelText('Memo')).toHaveValue('Team lunch');
    // The chart is asked for again, so the choice shows what can still be chosen.
    await waitFor(() => expect(requestsTo('/api/accounting-categories').length).toBeGreaterThan(1));
  });

  it('when someone else saved first, keeps what was typed, shows their notes and applies the change on top of them', async () => {
    const { patches } = serveNotes(transactionNotes({ tags: ['q3'] }), (a) => ({
      ...a,
      memo: 'Team lunch',
      categoryId: 'cat_travel',
      tags: ['q3', 'berlin'],
      version: a.version + 1,
      updatedBy: 'admin@example.test',
      updatedAt: AT,
    }));
    const { user } = open();
    const panel = await notesPanel();
    await user.type(panel.getByLabelText('Memo'), 'Client dinner');
    await user.type(panel.getByLabelText('Tags'), 'travel{Enter}');
    await user.click(panel.getByRole('button', { name: 'Save' }));

    const heading = await panel.findByRole('heading', { name: 'Someone else changed these notes' });
    expect(heading).toHaveFocus();
    expect(panel.getByRole('alert')).toHaveTextContent(
      'admin@example.test saved a change to these notes after you opened them, so your change was not saved. Your text is still in the form.',
    );
    expect(rowOf('Memo')).toEqual(['Team lunch changedyou saw No memo', 'Client dinner']);
    expect(rowOf('Category')).toEqual(['6200 Travel changedyou saw None', 'not changed']);
    expect(rowOf('Tags')).toEqual(['q3, berlin changedyou saw q3', 'Add travel']);
    expect(rowOf('Review')).toEqual(['Not reviewed', 'not changed']);
    // The form still holds what the person typed.
    expect(panel.getByLabelText('Memo')).toHaveValue('Client dinner');
    expect(panel.queryByRole('button', { name: 'Save' })).toBeNull();

    await user.click(panel.getByRole('button', { name: 'Apply my change to the current notes' }));
    expect(await panel.findByText('Notes saved.')).toBeInTheDocument();
    // Their memo replaces the current one; their added tag joins the current tags; the
    // category they left alone stays as the other person set it.
    expect(patches).toEqual([
      { version: 0, memo: 'Client dinner', tags: ['q3', 'travel'] },
      { version: 1, memo: 'Client dinner', tags: ['q3', 'berlin', 'travel'] },
    ]);
    expect(panel.getByLabelText('Memo')).toHaveValue('Client dinner');
    expect(panel.getByLabelText('Accounting category')).toHaveValue('6200 Travel');
    expect(panel.queryByRole('table')).toBeNull();
  });

  it('when the transaction was reviewed meanwhile, says who and reopens it to apply the change', async () => {
    const { patches } = serveNotes(transactionNotes(), (a) => ({
      ...a,
      review: { state: 'reviewed', by: 'admin@example.test', at: AT },
      version: a.version + 1,
      updatedBy: 'admin@example.test',
      updatedAt: AT,
    }));
    const { user } = open();
    const panel = await notesPanel();
    await user.type(panel.getByLabelText('Memo'), 'Client dinner');
    await user.click(panel.getByRole('button', { name: 'Save' }));
    expect(await panel.findByRole('alert')).toHaveTextContent(
      'admin@example.test reviewed this transaction after you opened it, so your change was not saved.',
    );
    expect(rowOf('Review')[0]).toMatch(/^Reviewed by admin@example.test on /);
    expect(panel.getByLabelText('Memo')).toHaveValue('Client dinner');

    await user.click(panel.getByRole('button', { name: 'Reopen and apply my change' }));
    expect(await panel.findByText('Reopened, and your change saved.')).toBeInTheDocument();
    expect(patches[1]).toEqual({ version: 1, memo: 'Client dinner', reviewed: false });
    expect(panel.getByText('Not reviewed')).toBeInTheDocument();
  });

  it('Discard my change shows the notes as they are now', async () => {
    serveNotes(transactionNotes(), (a) => ({ ...a, memo: 'Team lunch', version: 1 }));
    const { user } = open();
    const panel = await notesPanel();
    await user.type(panel.getByLabelText('Memo'), 'Client dinner');
    await user.click(panel.getByRole('button', { name: 'Save' }));
    await user.click(await panel.findByRole('button', { name: 'Discard my change' }));
    expect(panel.getByLabelText('Memo')).toHaveValue('Team lunch');
    expect(panel.getByText(/Your change was discarded/)).toBeInTheDocument();
  });

  it('Mark reviewed locks the notes with who and when; Reopen unlocks them', async () => {
    const { patches } = serveNotes(
      transactionNotes({ memo: 'Team lunch', categoryId: 'cat_meals', tags: ['q3'], version: 2 }),
    );
    const { user } = open();
    const panel = await notesPanel();
    await user.click(panel.getByRole('button', { name: 'Mark reviewed' }));

    expect(await panel.findByText('Marked reviewed.')).toBeInTheDocument();
    expect(patches).toEqual([{ version: 2, reviewed: true }]);
    const review = panel.getByText(/^by finance@example.test on/).closest('p') as HTMLElement;
    expect(review).toHaveTextContent(/Reviewed by finance@example.test on Mar 6, 2026/);
    expect(review).toHaveFocus();
    // Read only: the values, no fields to change them.
    expect(panel.queryByRole('textbox')).toBeNull();
    expect(panel.queryByRole('combobox')).toBeNull();
    expect(panel.getByText('Team lunch')).toBeInTheDocument();
    expect(panel.getByText('6100 Meals')).toBeInTheDocument();
    expect(panel.getByText('Reviewed notes are locked. Reopen to change them.')).toBeVisible();

    await user.click(panel.getByRole('button', { name: 'Reopen' }));
    expect(await panel.findByText('Reopened: the notes can be changed.')).toBeInTheDocument();
    expect(patches[1]).toEqual({ version: 3, reviewed: false });
    expect(panel.getByLabelText('Memo')).toHaveFocus();
    expect(panel.getByLabelText('Memo')).toHaveValue('Team lunch');
  });

  it('with changes typed, the review button saves them and reviews in one step', async () => {
    const { patches } = serveNotes();
    const { user } = open();
    const panel = await notesPanel();
    await user.type(panel.getByLabelText('Memo'), 'Checked');
    await user.click(panel.getByRole('button', { name: 'Save and mark reviewed' }));
    expect(await panel.findByText('Notes saved and marked reviewed.')).toBeInTheDocument();
    expect(patches).toEqual([{ version: 0, memo: 'Checked', reviewed: true }]);
  });

  it('an archived category the transaction has stays shown as "(archived)"', async () => {
    serveNotes(transactionNotes({ categoryId: 'cat_old', version: 1 }));
    const { user } = open();
    const panel = await notesPanel();
    const category = panel.getByLabelText('Accounting category');
    expect(category).toHaveValue('6900 Old software (archived)');
    // Still offered while the transaction has it.
    await user.clear(category);
    await user.type(category, 'old');
    expect(panel.getByRole('option', { name: '6900 Old software (archived)' })).toBeInTheDocument();
  });

  it('opens the category list on the category chosen, not the chart’s first', async () => {
    serveNotes(transactionNotes({ categoryId: 'cat_travel', version: 1 }));
    const { user } = open();
    const panel = await notesPanel();
    const category = panel.getByLabelText('Accounting category');
    await user.click(category);
    const chosen = panel.getByRole('option', { selected: true });
    expect(chosen).toHaveTextContent((category as HTMLInputElement).value);
    expect(panel.getAllByRole('option')[0]).not.toBe(chosen);
  });

  it("types the category ahead by code or name, offers the merchant's last one first, and Escape puts back what was there", async () => {
    const { patches } = serveNotes();
    server.use(
      serve('index.queue', () =>
        HttpResponse.json({
          count: 3,
          position: 1,
          suggestedCategoryId: 'cat_travel',
          freshness: { syncing: false, days: 0, daysDone: 0 },
        }),
      ),
    );
    const { user } = open();
    const panel = await notesPanel();
    const category = panel.getByLabelText('Accounting category');
    await waitFor(() =>
      expect(category).toHaveAccessibleDescription(
        'This merchant was last booked to 6200 Travel: press Enter to use it.',
      ),
    );
    await user.click(category);
    const choices = () =>
      within(panel.getByRole('listbox', { name: 'Accounting categories' }))
        .getAllByRole('option')
        .map((o) => o.textContent);
    expect(choices()).toEqual(['6200 Travel · this merchant’s last', '6100 Meals', 'No category']);
    await user.type(category, '61');
    expect(choices()).toEqual(['6100 Meals']);
    await user.keyboard('{Escape}');
    expect(category).toHaveValue('');
    expect(panel.getByRole('listbox', { hidden: true })).not.toBeVisible();
    // Enter on the field as it opens takes the suggestion: one key for the category.
    await user.keyboard('{ArrowDown}{Enter}');
    expect(category).toHaveValue('6200 Travel');
    await user.click(panel.getByRole('button', { name: 'Save' }));
    await panel.findByText('Notes saved.');
    expect(patches).toEqual([{ version: 0, categoryId: 'cat_travel' }]);
  });

  it('when the notes cannot be read, the transaction still shows, and the panel offers a Retry', async () => {
    let fail = true;
    serveNotes();
    server.use(
      serve('notes.get', () =>
        fail
          ? apiError(502, 'internal_error', 'The notes store did not answer.')
          : HttpResponse.json(transactionNotes()),
      ),
    );
    const { user } = open();
    expect(await screen.findByRole('heading', { level: 1, name: 'Coffee beans' })).toBeVisible();
    const panel = await notesPanel();
    expect(await panel.findByText(/The notes store did not answer/)).toBeInTheDocument();
    fail = false;
    await user.click(panel.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByLabelText('Memo')).toBeInTheDocument();
    expect(requestsTo('/api/transactions/tx_1/notes').length).toBeGreaterThan(1);
  });
});
