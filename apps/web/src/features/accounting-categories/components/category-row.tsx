import type { AccountingCategory } from '@card-console/shared/api/accounting-categories';
import { useEffect, useRef } from 'react';
import { useUpdateAccountingCategory } from '../api/update-accounting-category';
import { type CategoryFormValues, categoryLabel } from '../category-form';
import { CategoryForm } from './category-form';

interface CategoryRowProps {
  category: AccountingCategory;
  /** Finance's view: the category, no Edit or Archive. */
  readOnly?: boolean;
  editing: boolean;
  onEdit: (editing: boolean) => void;
  /** What happened, for the screen's status line; `failed` when it did not. */
  onResult: (message: string, failed?: boolean) => void;
}

/** One category: Edit turns it into a code and name form; Archive and Restore act at once. */
export function CategoryRow({
  category: c,
  readOnly = false,
  editing,
  onEdit,
  onResult,
}: CategoryRowProps) {
  const update = useUpdateAccountingCategory(c.id);
  const editButton = useRef<HTMLButtonElement>(null);
  const wasEditing = useRef(editing);
  // Back from the form (saved or cancelled): focus returns to this row's Edit.
  useEffect(() => {
    if (wasEditing.current && !editing) editButton.current?.focus();
    wasEditing.current = editing;
  }, [editing]);
  const label = categoryLabel(c);

  if (editing) {
    return (
      <tr className="editing">
        <td colSpan={4}>
          <CategoryForm
            label={`Edit ${label}`}
            className="inline-category-form"
            initial={{ code: c.code, name: c.name }}
            submitLabel="Save"
            autoFocus
            onSave={(values) => {
              const patch = changesOf(c, values);
              // Nothing changed: nothing is sent (or audited).
              return patch ? update.mutateAsync(patch) : Promise.resolve(c);
            }}
            onSaved={(saved) => {
              onEdit(false);
              if (saved !== c) onResult(`Saved ${categoryLabel(saved)}.`);
            }}
            onCancel={() => onEdit(false)}
          />
        </td>
      </tr>
    );
  }

  const toggle = () => {
    if (update.isPending) return;
    update.mutate(
      { archived: !c.archived },
      {
        onSuccess: (saved) =>
          onResult(
            saved.archived
              ? `Archived ${label}: it is no longer offered for transactions; those that have it keep it.`
              : `Restored ${label}: it is offered for transactions again.`,
          ),
        onError: (error) =>
          onResult(
            `${c.archived ? 'Restoring' : 'Archiving'} ${label} failed: ${error.message}`,
            true,
          ),
      },
    );
  };

  return (
    <tr className={c.archived ? 'archived' : undefined}>
      <td className="mono category-code-cell">{c.code}</td>
      <th scope="row" className="category-name-cell">
        {c.name}
      </th>
      <td>
        <span className={`badge ${c.archived ? 'badge-archived' : 'badge-active'}`}>
          {c.archived ? 'Archived' : 'Active'}
        </span>
      </td>
      {readOnly ? null : (
        <td>
          <div className="row-actions">
            {/* The names say which category; each starts with its visible word. */}
            <button
              ref={editButton}
              type="button"
              aria-label={`Edit ${label}`}
              onClick={() => onEdit(true)}
            >
              Edit
            </button>
            <button
              type="button"
              aria-label={`${c.archived ? 'Restore' : 'Archive'} ${label}`}
              aria-disabled={update.isPending || undefined}
              onClick={toggle}
            >
              {c.archived ? 'Restore' : 'Archive'}
            </button>
          </div>
        </td>
      )}
    </tr>
  );
}

/** Only what changed; undefined when nothing did. */
function changesOf(c: AccountingCategory, values: CategoryFormValues) {
  const patch: { code?: string; name?: string } = {};
  if (values.code !== c.code) patch.code = values.code;
  if (values.name !== c.name) patch.name = values.name;
  return Object.keys(patch).length ? patch : undefined;
}
