import type { AccountingCategory } from '@card-console/shared/api/accounting-categories';
import type { Notes } from '@card-console/shared/api/notes';
import { useEffect, useRef } from 'react';
import { formatDateTime } from '../../../lib/format';
import { fieldsChanged, type NotesValues, tagChanges, valuesOf } from '../notes-form';
import { categoryText } from './accounting-category-select';

interface NotesConflictProps {
  /** The notes as the person saw them when they began their change. */
  seen: NotesValues;
  /** The notes as they are now. */
  current: Notes;
  /** What the person has in the form. */
  mine: NotesValues;
  /** What their save was to do to the review: mark it (true), reopen it (false), neither. */
  review: boolean | undefined;
  categories: AccountingCategory[];
  saving: boolean;
  onApply: () => void;
  onDiscard: () => void;
}

const memoText = (memo: string) => (memo.trim() === '' ? 'No memo' : memo.trim());
const tagsText = (tags: string[]) => (tags.length ? tags.join(', ') : 'No tags');
/** "Add travel; remove q3": what the person did to the tags, applied to the current ones. */
function tagChangeText(seen: string[], mine: string[]): string | undefined {
  const { added, removed } = tagChanges(seen, mine);
  const parts = [
    ...(added.length ? [`Add ${added.join(', ')}`] : []),
    ...(removed.length ? [`${added.length ? 'remove' : 'Remove'} ${removed.join(', ')}`] : []),
  ];
  return parts.length ? parts.join('; ') : undefined;
}
const reviewText = (a: Notes) =>
  a.review.state === 'reviewed'
    ? `Reviewed by ${a.review.by} on ${formatDateTime(a.review.at)}`
    : 'Not reviewed';

/**
 * Someone else changed the notes while this person was editing, so theirs were not saved: what
 * is there now (marked where it moved since they looked) beside their change, which stays in the
 * form above. They apply it to the current notes (a new save on the current version) or drop it.
 */
export function NotesConflict(props: NotesConflictProps) {
  const { seen, current, mine, review, categories, saving } = props;
  const heading = useRef<HTMLHeadingElement>(null);
  // Focus follows the news, also when applying the change meets yet another one.
  useEffect(() => {
    if (current) heading.current?.focus();
  }, [current]);

  const now = valuesOf(current);
  const changed = fieldsChanged(seen, mine);
  const category = (id: string | null) => categoryText(id, categories);
  const rows = [
    {
      label: 'Memo',
      seen: memoText(seen.memo),
      now: memoText(now.memo),
      mine: changed.memo === undefined ? undefined : memoText(changed.memo),
    },
    {
      label: 'Category',
      seen: category(seen.categoryId),
      now: category(now.categoryId),
      mine: changed.categoryId === undefined ? undefined : category(changed.categoryId),
    },
    {
      label: 'Tags',
      seen: tagsText(seen.tags),
      now: tagsText(now.tags),
      mine: changed.tags && tagChangeText(seen.tags, mine.tags),
    },
    {
      label: 'Review',
      seen: 'Not reviewed',
      now: reviewText(current),
      mine: review === true ? 'Mark reviewed' : review === false ? 'Reopen' : undefined,
    },
  ];
  const who = current.review.state === 'reviewed' ? current.review.by : undefined;
  const reviewed = who !== undefined;
  return (
    <section className="conflict notes-conflict" aria-labelledby="notes-conflict-title">
      <h3 id="notes-conflict-title" ref={heading} tabIndex={-1}>
        Someone else changed these notes
      </h3>
      <p role="alert">
        {who
          ? `${who} reviewed this transaction after you opened it, so your change was not saved. `
          : `${current.updatedBy ?? 'Someone else'} saved a change to these notes after you opened them, so your change was not saved. `}
        Your text is still in the form. Compare it with the notes as they are now, then{' '}
        {reviewed ? 'reopen the transaction and apply your change' : 'apply your change to them'},
        or discard it.
      </p>
      <table className="conflict-table">
        <caption className="visually-hidden">The notes now and your change</caption>
        <thead>
          <tr>
            <th scope="col">Field</th>
            <th scope="col">Now</th>
            <th scope="col">Your change</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.label}>
              <th scope="row">{row.label}</th>
              <td className="notes-value" data-label="Now">
                {row.now}
                {row.seen === row.now ? null : (
                  <>
                    {' '}
                    <span className="tag">changed</span>
                    <small className="muted was">you saw {row.seen}</small>
                  </>
                )}
              </td>
              <td className="notes-value" data-label="Your change">
                {row.mine === undefined ? <span className="muted">not changed</span> : row.mine}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="actions">
        <button type="button" onClick={props.onDiscard} disabled={saving}>
          Discard my change
        </button>
        <button type="button" className="primary" disabled={saving} onClick={props.onApply}>
          {saving
            ? 'Saving…'
            : reviewed
              ? 'Reopen and apply my change'
              : 'Apply my change to the current notes'}
        </button>
      </div>
    </section>
  );
}
