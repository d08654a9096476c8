import { type ReactNode, useState } from 'react';

/**
 * A value the server gives out once (an invitation link, a webhook's signing secret): shown
 * read-only with a Copy button, and forgotten once the person is done. `children` says what it
 * is for, above the value; `after` is anything to add below it; `name` is how the hint speaks
 * of the value when the browser refuses to copy ("the link", "the secret").
 */
export function ShownOnce({
  label,
  value,
  name,
  children,
  after,
  onDone,
}: {
  label: string;
  value: string;
  name: string;
  children: ReactNode;
  after?: ReactNode;
  onDone: () => void;
}) {
  const [copied, setCopied] = useState<boolean>();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
    } catch {
      setCopied(false);
    }
  };
  return (
    <div className="stack shown-once">
      {children}
      <div className="shown-once-row">
        <input aria-label={label} readOnly value={value} onFocus={(e) => e.target.select()} />
        <button type="button" onClick={() => void copy()}>
          Copy
        </button>
      </div>
      {after}
      <p className="muted" role="status">
        {copied === true
          ? 'Copied.'
          : copied === false
            ? `Copying was not allowed here: select ${name} and copy it yourself.`
            : ''}
      </p>
      <div className="actions">
        <button type="button" className="primary" onClick={onDone}>
          Done
        </button>
      </div>
    </div>
  );
}
