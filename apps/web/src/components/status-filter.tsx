import { Field } from './field';
import { statusLabel } from './status-badge';

interface StatusFilterProps<S extends string> {
  statuses: readonly S[];
  value: S | undefined;
  onChange: (status: S | undefined) => void;
}

/** The "Status" filter of a list: every status the service knows, or all of them. */
export function StatusFilter<S extends string>({
  statuses,
  value,
  onChange,
}: StatusFilterProps<S>) {
  return (
    <Field label="Status">
      {(control) => (
        <select
          {...control}
          value={value ?? ''}
          onChange={(e) => onChange((e.target.value || undefined) as S | undefined)}
        >
          <option value="">All statuses</option>
          {statuses.map((s) => (
            <option key={s} value={s}>
              {statusLabel(s)}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}
