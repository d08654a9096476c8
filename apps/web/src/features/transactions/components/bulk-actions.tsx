import type { AccountingCategory } from '@card-console/shared/api/accounting-categories';
import type { IndexTransaction } from '@card-console/shared/api/transaction-index';
import { useId, useState } from 'react';
import { Field } from '../../../components/field';
import { type BulkNotesAction, useUpdateManyNotes } from '../api/update-many-notes';
import { bulkResultText } from '../bulk-result';
import { addTags, splitTags } from '../notes-form';
import { NO_ACCOUNT } from '../transactions-search';
import { categoryText } from './accounting-category-select';

interface BulkActionsProps {
  selected: readonly IndexTransaction[];
  /** The chart of accounts; undefined while it loads. */
  categories: AccountingCategory[] | undefined;
  onClear: () => void;
  /** What a change did, for the screen's status line (which outlives this bar). */
  onResult: (result: { text: string; failed?: boolean }) => void;
}

const count = (n: number) => n.toLocaleString('en-US');

/**
 * With rows selected: book them to an accounting category (or none), add tags, mark them
 * reviewed or reopen them, in one change. Reviewed rows take no category or tag until reopened:
 * the BFF skips them and the result says so.
 */
export function BulkActions({ selected, categories, onClear, onResult }: BulkActionsProps) {
  const update = useUpdateManyNotes();
  const [account, setAccount] = useState('');
  const [tagText, setTagText] = useState('');
  const [errors, setErrors] = useState<{ account?: string; tags?: string }>({});
  const titleId = useId();
  const busy = update.isPending;

  const run = (action: BulkNotesAction, what: string, after?: () => void) => {
    if (busy) return;
    update.mutate(
      { items: selected.map(({ subAccountId, id }) => ({ subAccountId, id })), action },
      {
        onSuccess: (result) => {
          onResult({ text: `${what}: ${bulkResultText(result)}` });
          after?.();
        },
        onError: (error) =>
          onResult({
            text: `${what} failed: ${error.message} The list shows the transactions as they are now.`,
            failed: true,
          }),
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

  const offered = (categories ?? []).filter((c) => !c.archived);
  return (
    <section className="bulk-actions" aria-labelledby={titleId}>
      <p className="bulk-count">
        <strong id={titleId}>{count(selected.length)} selected</strong>
        <button type="button" className="link-button" onClick={onClear}>
          Clear selection
        </button>
      </p>
      <div className="bulk-controls">
        <div className="bulk-control">
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
      {busy ? (
        <p className="muted bulk-busy" role="status">
          Changing {count(selected.length)} transaction{selected.length === 1 ? '' : 's'}…
        </p>
      ) : null}
    </section>
  );
}
