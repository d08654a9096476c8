import type { AccountingCategory } from '@card-console/shared/api/accounting-categories';
import { MAX_TAGS } from '@card-console/shared/api/notes-rules';
import { useState } from 'react';
import { Field } from '../../../components/field';
import { tagProblem } from '../notes-form';
import {
  NO_ACCOUNT,
  type ReceiptFilter,
  type Review,
  type TransactionsSearch,
} from '../transactions-search';
import { accountLabel } from './account-label';

interface NotesFiltersProps {
  search: TransactionsSearch;
  /** The chart of accounts; undefined while it loads. */
  categories: AccountingCategory[] | undefined;
  set: (patch: Partial<TransactionsSearch>) => void;
}

/**
 * The notes' filters: reviewed or not, accounting categories (any of several, or none), a
 * receipt attached or missing, and tags (any of several). Each added category or tag shows as a chip above the list.
 */
export function NotesFilters({ search, categories, set }: NotesFiltersProps) {
  const chosen = new Set(search.account ?? []);
  const offered = (categories ?? []).filter((c) => !c.archived && !chosen.has(c.id));
  return (
    <>
      <Field label="Review" className="review-field">
        {(control) => (
          <select
            {...control}
            value={search.review ?? ''}
            onChange={(e) => set({ review: (e.target.value || undefined) as Review | undefined })}
          >
            <option value="">Any</option>
            <option value="unreviewed">Unreviewed</option>
            <option value="reviewed">Reviewed</option>
          </select>
        )}
      </Field>
      <Field label="Accounting category" className="account-field">
        {(control) => (
          <select
            {...control}
            value=""
            aria-busy={categories === undefined || undefined}
            onChange={(e) =>
              e.target.value && set({ account: [...(search.account ?? []), e.target.value] })
            }
          >
            <option value="">{search.account ? 'Add a category…' : 'Any category'}</option>
            {chosen.has(NO_ACCOUNT) ? null : <option value={NO_ACCOUNT}>No category</option>}
            {offered.map((c) => (
              <option key={c.id} value={c.id}>
                {accountLabel(c.id, categories)}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Receipt" className="receipt-field">
        {(control) => (
          <select
            {...control}
            value={search.receipt ?? ''}
            onChange={(e) =>
              set({ receipt: (e.target.value || undefined) as ReceiptFilter | undefined })
            }
          >
            <option value="">Any</option>
            <option value="attached">Attached</option>
            <option value="missing">Missing</option>
          </select>
        )}
      </Field>
      <TagFilter
        tags={search.tag ?? []}
        onAdd={(tag) => set({ tag: [...(search.tag ?? []), tag] })}
      />
    </>
  );
}

/** A tag to filter by: applied on Enter; one already filtered by, or not a tag, is said. */
function TagFilter({ tags, onAdd }: { tags: string[]; onAdd: (tag: string) => void }) {
  const [typed, setTyped] = useState('');
  const [error, setError] = useState<string>();
  const add = () => {
    const tag = typed.trim();
    if (!tag) return;
    const key = tag.toLocaleLowerCase('en');
    const problem = tags.some((t) => t.toLocaleLowerCase('en') === key)
      ? `The list is already filtered by “${tag}”.`
      : tags.length >= MAX_TAGS
        ? `Filter by at most ${MAX_TAGS} tags.`
        : tagProblem(tag, []);
    if (problem) return setError(problem);
    setTyped('');
    setError(undefined);
    onAdd(tag);
  };
  return (
    <Field label="Tag" className="tag-filter-field" error={error}>
      {(control) => (
        <input
          {...control}
          type="search"
          placeholder="Enter adds"
          maxLength={60}
          autoComplete="off"
          value={typed}
          onChange={(e) => {
            setTyped(e.target.value);
            setError(undefined);
          }}
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              e.preventDefault();
              add();
            }
          }}
        />
      )}
    </Field>
  );
}
