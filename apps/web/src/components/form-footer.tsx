import type { ReactNode } from 'react';

/**
 * The end of a dialog's form: what went wrong (announced), then Cancel and the form's own
 * action(s), in the order every dialog keeps.
 */
export function FormFooter({
  error,
  onCancel,
  children,
}: {
  error?: ReactNode;
  onCancel: () => void;
  /** The action button(s), after Cancel. */
  children?: ReactNode;
}) {
  return (
    <>
      {error ? (
        <p className="form-error" role="alert">
          {error}
        </p>
      ) : null}
      <div className="actions">
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        {children}
      </div>
    </>
  );
}
