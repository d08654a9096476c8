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
