import type { AccountingCategory } from '@card-console/shared/api/accounting-categories';
import type { NotesValues } from '../notes-form';
import { categoryText } from './accounting-category-select';
import { TagChips } from './tags-field';

/** The notes of a reviewed transaction, read only until it is reopened. */
export function NotesSummary({
  values,
  categories,
}: {
  values: NotesValues;
  categories: AccountingCategory[];
}) {
  return (
    <dl className="pairs notes-summary">
      <dt>Memo</dt>
      <dd className="notes-value">{values.memo || <span className="muted">No memo</span>}</dd>
      <dt>Accounting category</dt>
      <dd>{categoryText(values.categoryId, categories)}</dd>
      <dt>Tags</dt>
      <dd>
        {values.tags.length ? <TagChips tags={values.tags} /> : <span className="muted">None</span>}
      </dd>
    </dl>
  );
}
