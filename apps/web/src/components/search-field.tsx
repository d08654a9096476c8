import { useEffect, useEffectEvent, useState } from 'react';
import { Field } from './field';

/**
 * A list's search box: applied after a pause in typing (each key is not a new list) or at once
 * on Enter; Back, Forward or a link that changes the value show it.
 */
export function SearchField({
  label,
  placeholder,
  className,
  maxLength,
  pauseMs,
  value,
  onChange,
}: {
  label: string;
  placeholder: string;
  className: string;
  maxLength: number;
  /** How long typing pauses before the search applies by itself. */
  pauseMs: number;
  value: string | undefined;
  onChange: (q: string | undefined) => void;
}) {
  const [typed, setTyped] = useState(value ?? '');
  const [applied, setApplied] = useState(value);
  if (applied !== value) {
    setApplied(value);
    setTyped(value ?? '');
  }
  const wanted = typed.trim() || undefined;
  // The screen's latest handler, without restarting the pause each time the screen renders.
  const apply = useEffectEvent((q: string | undefined) => onChange(q));
  useEffect(() => {
    if (wanted === value) return;
    const timer = setTimeout(() => apply(wanted), pauseMs);
    return () => clearTimeout(timer);
  }, [wanted, value, pauseMs]);
  return (
    <Field label={label} className={className}>
      {(control) => (
        <input
          {...control}
          type="search"
          placeholder={placeholder}
          maxLength={maxLength}
          autoComplete="off"
          enterKeyHint="search"
          value={typed}
          onChange={(e) => setTyped(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && wanted !== value) onChange(wanted);
          }}
        />
      )}
    </Field>
  );
}
