import { useState } from 'react';
import { Field } from './field';

/**
 * "From" and "To" day pickers (YYYY-MM-DD in the person's time zone); each bounds the other, so
 * the browser's picker never offers a range that ends before it starts.
 */
export function DayRangeFields(props: {
  from: string | undefined;
  to: string | undefined;
  onDay: (which: 'from' | 'to', day: string) => void;
}) {
  return (
    <>
      <Field label="From">
        {(control) => (
          <input
            {...control}
            type="date"
            value={props.from ?? ''}
            max={props.to}
            onChange={(e) => props.onDay('from', e.target.value)}
          />
        )}
      </Field>
      <Field label="To">
        {(control) => (
          <input
            {...control}
            type="date"
            value={props.to ?? ''}
            min={props.from}
            onChange={(e) => props.onDay('to', e.target.value)}
          />
        )}
      </Field>
    </>
  );
}

/**
 * A day range's edits: a change that would put the start after the end is not applied and
 * leaves a message to show instead; any other change goes to `apply` (an empty day clears it).
 */
export function useDayRange(
  range: { from?: string | undefined; to?: string | undefined },
  apply: (patch: { from?: string | undefined; to?: string | undefined }) => void,
) {
  const [dateError, setDateError] = useState<string | undefined>();
  const setDay = (which: 'from' | 'to', value: string) => {
    const next = { from: range.from, to: range.to, [which]: value || undefined };
    if (next.from && next.to && next.from > next.to) {
      setDateError('The start date must not be after the end date.');
      return;
    }
    setDateError(undefined);
    apply({ [which]: value || undefined });
  };
  return { setDay, dateError, clearDateError: () => setDateError(undefined) };
}
