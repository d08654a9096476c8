import { useId, useState } from 'react';
import { formatDate } from '../lib/format';
import { Field } from './field';

/** Days as YYYY-MM-DD in the person's time zone; either end may be open. */
export interface DayRange {
  from?: string | undefined;
  to?: string | undefined;
}

type End = 'from' | 'to';
const LABEL: Record<End, string> = { from: 'From', to: 'To' };

/**
 * A browser's date field reports each year it passes while the year is typed (0002, 0020,
 * 0202, 2026): such a day is not finished, so it is neither applied nor called out of order.
 */
const unfinished = (day: string | undefined) => day !== undefined && day < '1000';

/** What keeps the typed range from being applied, and which field should change. */
function problem(range: DayRange, edited: End | undefined, typing: End | undefined) {
  for (const end of ['from', 'to'] as const) {
    if (unfinished(range[end])) {
      return end === typing
        ? { end, message: undefined }
        : { end, message: `${LABEL[end]}: finish the year (four digits).` };
    }
  }
  if (range.from && range.to && range.from > range.to) {
    const from = formatDate(range.from);
    const to = formatDate(range.to);
    const message =
      edited === 'to'
        ? `To (${to}) is before From (${from}). Choose a To on or after ${from}, or an earlier From; the list waits until then.`
        : `From (${from}) is after To (${to}). Choose a From on or before ${to}, or a later To; the list waits until then.`;
    return { end: edited ?? 'from', message };
  }
  return undefined;
}

/**
 * "From" and "To" days. Each field keeps what the person typed; the range goes to `onChange`
 * only when it is whole and in order. A From after the To (or a To before the From) is kept
 * as typed with a message naming the day to change, and the list stays as it is until one
 * of them changes: nothing moves by itself and nothing typed is lost. The pickers offer only
 * days in order. A new range from the URL (Back, Forward, a link, clearing filters) replaces
 * what was typed, and its message.
 */
export function DayRangeFields(props: DayRange & { onChange: (range: DayRange) => void }) {
  const { from, to, onChange } = props;
  const [applied, setApplied] = useState<DayRange>({ from, to });
  const [draft, setDraft] = useState<DayRange>({ from, to });
  const [edited, setEdited] = useState<End | undefined>();
  const [typing, setTyping] = useState<End | undefined>();
  const messageId = useId();
  if (applied.from !== from || applied.to !== to) {
    setApplied({ from, to });
    setDraft({ from, to });
    setEdited(undefined);
  }

  const wrong = problem(draft, edited, typing);
  const setDay = (end: End, value: string) => {
    const next = { ...draft, [end]: value || undefined };
    setDraft(next);
    setEdited(end);
    if (!problem(next, end, end) && (next.from !== from || next.to !== to)) onChange(next);
  };

  const field = (end: End) => (
    <Field label={LABEL[end]}>
      {(control) => (
        <input
          {...control}
          type="date"
          value={draft[end] ?? ''}
          {...(end === 'from' ? { max: draft.to } : { min: draft.from })}
          {...(wrong?.message && wrong.end === end
            ? { 'aria-invalid': true, 'aria-describedby': messageId }
            : {})}
          onChange={(e) => setDay(end, e.target.value)}
          onFocus={() => setTyping(end)}
          onBlur={() => setTyping(undefined)}
        />
      )}
    </Field>
  );

  return (
    <>
      {field('from')}
      {field('to')}
      {wrong?.message ? (
        <p id={messageId} className="form-error day-range-error" role="alert">
          {wrong.message}
        </p>
      ) : null}
    </>
  );
}
