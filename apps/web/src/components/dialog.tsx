import { type ReactNode, type RefObject, useEffect, useId, useRef } from 'react';

interface DialogProps {
  title: string;
  onClose: () => void;
  children: ReactNode;
  /** Another class beside `dialog` (a wider one, for a picture). */
  className?: string;
  /**
   * Where the focus goes back on close: the control that opened it, as it is then (it may have
   * been drawn again meanwhile). Without it, whatever had the focus when it opened.
   */
  returnFocus?: RefObject<HTMLElement | null>;
}

/** A modal dialog: focus moves in, Escape closes, Tab stays inside, focus returns on close. */
export function Dialog({ title, onClose, children, className, returnFocus }: DialogProps) {
  const titleId = useId();
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const previous = document.activeElement as HTMLElement | null;
    const first = ref.current?.querySelector<HTMLElement>(
      'input, select, textarea, button:not([data-close])',
    );
    (first ?? ref.current)?.focus();
    return () => {
      const back = returnFocus?.current?.isConnected ? returnFocus.current : previous;
      back?.focus();
    };
  }, [returnFocus]);
  const onKeyDown = (event: React.KeyboardEvent) => {
    if (event.key === 'Escape') {
      event.stopPropagation();
      onClose();
      return;
    }
    if (event.key !== 'Tab' || !ref.current) return;
    const focusable = [
      ...ref.current.querySelectorAll<HTMLElement>('input, select, textarea, button, a[href]'),
    ].filter((el) => !el.hasAttribute('disabled'));
    const first = focusable[0];
    const last = focusable.at(-1);
    if (event.shiftKey && document.activeElement === first) {
      event.preventDefault();
      last?.focus();
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first?.focus();
    }
  };
  return (
    <div className="dialog-backdrop">
      <div
        ref={ref}
        className={className ? `dialog ${className}` : 'dialog'}
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        tabIndex={-1}
        onKeyDown={onKeyDown}
      >
        <div className="dialog-header">
          <h2 id={titleId}>{title}</h2>
          <button type="button" data-close className="icon-button" onClick={onClose}>
            <span aria-hidden="true">×</span>
            <span className="visually-hidden">Close</span>
          </button>
        </div>
        {children}
      </div>
    </div>
  );
}
