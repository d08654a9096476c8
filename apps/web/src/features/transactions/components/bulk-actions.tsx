import type { AccountingCategory } from '@card-console/shared/api/accounting-categories';
import type { NotesMatchingResult } from '@card-console/shared/api/notes-matching';
import type {
  IndexFilterQuery,
  IndexTransaction,
} from '@card-console/shared/api/transaction-index';
import { useId, useState } from 'react';
import { Field } from '../../../components/field';
import { ApiError } from '../../../lib/api-error';
import { wholeChoice } from '../../../lib/whole-choice';
import { type BulkNotesAction, useUpdateManyNotes } from '../api/update-many-notes';
import { useUpdateMatchingNotes } from '../api/update-matching-notes';
import { bulkResultText, matchingResultText, skippedText } from '../bulk-result';
import { addTags, memoProblem, splitTags } from '../notes-form';
import { NO_ACCOUNT } from '../transactions-search';
import { categoryText } from './accounting-category-select';

interface BulkActionsProps {
  selected: readonly IndexTransaction[];
  /**
   * Every transaction the list's filter gives is chosen (not only the rows shown): the change
   * goes to the filter, its count shown first for the person to confirm.
   */
  matching?: { filter: IndexFilterQuery; count: number } | undefined;
  /** Every row shown is chosen and more match: offers "Select all N matching". */
  moreMatching?: { count: number; onSelect: () => void } | undefined;
  /** The chart of accounts; undefined while it loads. */
  categories: AccountingCategory[] | undefined;
  onClear: () => void;
  /** What a change did, for the screen's status line (which outlives this bar). */
  onResult: (result: { text: string; failed?: boolean }) => void;
}

const count = (n: number) => n.toLocaleString('en-US');

const transactions = (n: number) => `${count(n)} transaction${n === 1 ? '' : 's'}`;

/** A change of every matching row waiting for its confirmation, with what it would do. */
interface Pending {
  action: BulkNotesAction;
  what: string;
  preview: NotesMatchingResult;
  /** The rows changed between an earlier count and its confirmation: this is a new count. */
  recounted?: boolean;
}

/**
 * With rows selected (or every matching row): book them to an accounting category (or none), add
 * tags, write a memo (appended or replacing), mark them reviewed or reopen them, in one change.
 * Reviewed rows take no category, tag or memo until reopened, and are not reviewed again; rows
 * not reviewed are not reopened: the BFF skips them and the result says how many and why. A
 * change of every matching row first says how many it would change, and waits for Confirm.
 */
export function BulkActions({
  selected,
  matching,
  moreMatching,
  categories,
  onClear,
  onResult,
}: BulkActionsProps) {
  const update = useUpdateManyNotes();
  const updateMatching = useUpdateMatchingNotes();
  const [account, setAccount] = useState('');
  const [tagText, setTagText] = useState('');
  const [memo, setMemo] = useState('');
  const [memoMode, setMemoMode] = useState<'append' | 'replace'>('append');
  const [errors, setErrors] = useState<{ account?: string; tags?: string; memo?: string }>({});
  const [pending, setPending] = useState<Pending>();
  const titleId = useId();
  const busy = update.isPending || updateMatching.isPending;
  const failed = (what: string) => (error: Error) =>
    onResult({
      text: `${what} failed: ${error.message} The list shows the transactions as they are now.`,
      failed: true,
    });

  /** The count first: what the change would do to the rows as they are now. */
  const countFirst = (
    action: BulkNotesAction,
    what: string,
    after?: () => void,
    recounted?: true,
  ) => {
    if (!matching) return;
    updateMatching.mutate(
      { filter: matching.filter, ...action, preview: true },
      {
        onSuccess: (preview) => {
          setPending({ action, what, preview, ...(recounted && { recounted }) });
          after?.();
        },
        onError: failed(what),
      },
    );
  };

  const run = (action: BulkNotesAction, what: string, after?: () => void) => {
    if (busy) return;
    if (matching) {
      countFirst(action, what, after);
      return;
    }
    // The outcome is told through the promise, not `mutate`'s callbacks: those are dropped when
    // this bar is gone before the answer (the list refreshed and the chosen rows left it), and
    // the person would never hear what became of their change.
    update
      .mutateAsync({
        items: selected.map(({ subAccountId, id }) => ({ subAccountId, id })),
        action,
      })
      .then((result) => {
        onResult({ text: `${what}: ${bulkResultText(result)}` });
        after?.();
      }, failed(what));
  };

  const confirm = () => {
    if (!pending || !matching || busy) return;
    const { action, what, preview } = pending;
    // Through the promise, as `run`'s: the answer is told even when this bar is gone by then.
    // Only the rows counted: if the filter gives others by now, nothing changes and they are
    // counted again for the person to confirm.
    updateMatching
      .mutateAsync({ filter: matching.filter, ...action, matchingDigest: preview.matchingDigest })
      .then(
        (result) => {
          setPending(undefined);
          onResult({ text: `${what}: ${matchingResultText(result)}` });
          onClear();
        },
        (error: Error) => {
          setPending(undefined);
          if (error instanceof ApiError && error.code === 'matching_changed') {
            countFirst(action, what, undefined, true);
            return;
          }
          failed(what)(error);
        },
      );
  };

  const setCategory = () => {
    if (account === '') {
      setErrors({ account: 'Choose a category, or “No category”.' });
      return;
    }
    const categoryId = account === NO_ACCOUNT ? null : account;
    run(
      { categoryId },
      categoryId === null
        ? 'Category removed'
        : `Booked to ${categoryText(categoryId, categories ?? [])}`,
    );
  };

  const addTagsToSelection = () => {
    const typed = splitTags(tagText);
    if (typed.length === 0) {
      setErrors({ tags: 'Type one or more tags, separated by commas.' });
      return;
    }
    const checked = addTags([], typed);
    if (checked.error) {
      setErrors({ tags: checked.error.replace('A transaction can have', 'Add') });
      return;
    }
    run({ addTags: checked.tags }, `Tagged ${checked.tags.join(', ')}`, () => setTagText(''));
  };

  const writeMemo = () => {
    const text = memo.trim();
    const problem = text === '' ? 'Type the memo.' : memoProblem(text);
    if (problem) {
      setErrors({ memo: problem });
      return;
    }
    run(
      { memo: { text, mode: memoMode } },
      memoMode === 'append' ? 'Memo added' : 'Memo replaced',
      () => setMemo(''),
    );
  };

  const offered = (categories ?? []).filter((c) => !c.archived);
  const chosenText =
    account === '' || account === NO_ACCOUNT ? undefined : categoryText(account, offered);
  const chosen = matching ? matching.count : selected.length;
  return (
    <section className="bulk-actions" aria-labelledby={titleId}>
      <p className="bulk-count">
        <strong id={titleId}>
          {matching
            ? `All ${count(matching.count)} matching selected`
            : `${count(chosen)} selected`}
        </strong>
        {moreMatching && !matching ? (
          <button type="button" className="link-button" onClick={moreMatching.onSelect}>
            Select all {count(moreMatching.count)} matching
          </button>
        ) : null}
        <button type="button" className="link-button" onClick={onClear}>
          Clear selection
        </button>
      </p>
      {pending ? (
        <div className="bulk-confirm" role="alertdialog" aria-labelledby={`${titleId}-confirm`}>
          <p id={`${titleId}-confirm`}>
            {pending.recounted
              ? 'The matching transactions changed after they were counted, so nothing was changed. Counted again: '
              : null}
            <strong>{pending.what}</strong> — {confirmText(pending.preview)}
          </p>
          <button
            type="button"
            className="primary"
            aria-disabled={busy || pending.preview.changed === 0 || undefined}
            onClick={pending.preview.changed === 0 ? undefined : confirm}
          >
            {busy ? 'Changing…' : `Change ${transactions(pending.preview.changed)}`}
          </button>
          <button type="button" onClick={() => setPending(undefined)}>
            Cancel
          </button>
        </div>
      ) : (
        <div className="bulk-controls">
          <div className="bulk-control bulk-category">
            <Field label="Accounting category" error={errors.account}>
              {(control) => (
                <select
                  {...control}
                  value={account}
                  aria-busy={categories === undefined || undefined}
                  onChange={(e) => {
                    setAccount(e.target.value);
                    setErrors({});
                  }}
                >
                  <option value="">Choose a category…</option>
                  <option value={NO_ACCOUNT}>No category</option>
                  {offered.map((c) => (
                    <option key={c.id} value={c.id}>
                      {categoryText(c.id, offered)}
                    </option>
                  ))}
                </select>
              )}
            </Field>
            <button type="button" aria-disabled={busy || undefined} onClick={setCategory}>
              Set category
            </button>
            {wholeChoice(chosenText) ? (
              // A long code and name does not fit the field: the whole of what is about to be
              // written, where it can be read before it is.
              <p className="bulk-choice">{chosenText}</p>
            ) : null}
          </div>
          <div className="bulk-control">
            <Field label="Tags to add" error={errors.tags}>
              {(control) => (
                <input
                  {...control}
                  value={tagText}
                  placeholder="travel, q3"
                  autoComplete="off"
                  onChange={(e) => {
                    setTagText(e.target.value);
                    setErrors({});
                  }}
                  onKeyDown={(e) => {
                    if (e.key === 'Enter') {
                      e.preventDefault();
                      addTagsToSelection();
                    }
                  }}
                />
              )}
            </Field>
            <button type="button" aria-disabled={busy || undefined} onClick={addTagsToSelection}>
              Add tags
            </button>
          </div>
          <div className="bulk-control bulk-memo">
            <Field label="Memo" error={errors.memo}>
              {(control) => (
                // A memo may have lines (as the transaction's own editor writes them): what is
                // pasted stays whole, lines and length, and one too long is said, not cut.
                <textarea
                  {...control}
                  rows={1}
                  value={memo}
                  placeholder="Approved by Dana"
                  autoComplete="off"
                  onChange={(e) => {
                    setMemo(e.target.value);
                    setErrors({});
                  }}
                  onKeyDown={(e) => {
                    // Enter writes it, as the bar's other fields do; Shift+Enter is a new line.
                    if (e.key === 'Enter' && !e.shiftKey) {
                      e.preventDefault();
                      writeMemo();
                    }
                  }}
                />
              )}
            </Field>
            <select
              aria-label="How the memo is written"
              value={memoMode}
              onChange={(e) => setMemoMode(e.target.value === 'replace' ? 'replace' : 'append')}
            >
              <option value="append">Add to memo</option>
              <option value="replace">Replace memo</option>
            </select>
            <button type="button" aria-disabled={busy || undefined} onClick={writeMemo}>
              Write memo
            </button>
          </div>
          <div className="bulk-review">
            <button
              type="button"
              className="primary"
              aria-disabled={busy || undefined}
              onClick={() => run({ reviewed: true }, 'Marked reviewed')}
            >
              Mark reviewed
            </button>
            <button
              type="button"
              aria-disabled={busy || undefined}
              onClick={() => run({ reviewed: false }, 'Reopened')}
            >
              Reopen
            </button>
          </div>
        </div>
      )}
      {busy ? (
        <p className="muted bulk-busy" role="status">
          {matching && !pending
            ? `Counting ${transactions(matching.count)}…`
            : `Changing ${transactions(chosen)}…`}
        </p>
      ) : null}
    </section>
  );
}

/** "1,120 of 1,131 transactions will change; 11 skipped: reviewed — reopen them first." */
function confirmText(preview: NotesMatchingResult): string {
  const of = `${count(preview.changed)} of ${transactions(preview.matching)} will change`;
  if (preview.skipped.length === 0) return `${of}.`;
  return `${of}; ${skippedText(new Map(preview.skipped.map((s) => [s.reason, s.count])))}`;
}
