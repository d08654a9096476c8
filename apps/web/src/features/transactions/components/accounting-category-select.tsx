import type { AccountingCategory } from '@card-console/shared/api/accounting-categories';
import { Field } from '../../../components/field';

/** "6100 Software", "(archived)" after one that is; "None" for no category. */
export function categoryText(id: string | null, categories: AccountingCategory[]): string {
  if (id === null) return 'None';
  const category = categories.find((c) => c.id === id);
  if (!category) return 'A category no longer in the chart of accounts';
  return `${category.code} ${category.name}${category.archived ? ' (archived)' : ''}`;
}

interface Props {
  value: string | null;
  /** Offered even when archived: the category the notes had when editing began. */
  kept: string | null;
  categories: AccountingCategory[];
  error: string | undefined;
  onChange: (id: string | null) => void;
}

/**
 * The accounting category: the chart's current categories; an archived one stays offered only
 * while the transaction has it, marked "(archived)".
 */
export function AccountingCategorySelect({ value, kept, categories, error, onChange }: Props) {
  const offered = categories.filter((c) => !c.archived || c.id === value || c.id === kept);
  const unknown = value !== null && !categories.some((c) => c.id === value);
  return (
    <Field
      label="Accounting category"
      error={error}
      hint={
        categories.length === 0
          ? 'There are no accounting categories yet: admins add them in the chart of accounts.'
          : undefined
      }
    >
      {(control) => (
        <select
          {...control}
          value={value ?? ''}
          onChange={(e) => onChange(e.target.value === '' ? null : e.target.value)}
        >
          <option value="">No category</option>
          {unknown ? <option value={value}>{categoryText(value, categories)}</option> : null}
          {offered.map((c) => (
            <option key={c.id} value={c.id}>
              {categoryText(c.id, categories)}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}
