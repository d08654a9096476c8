import { useCallback, useEffect, useRef } from 'react';
import { ErrorState } from './error-state';

const count = new Intl.NumberFormat('en-US');

interface LoadMoreProps {
  /** Rows shown so far. */
  shown: number;
  /** What a row is, singular and plural: ['transaction', 'transactions']. */
  noun: readonly [string, string];
  hasMore: boolean;
  /** The next page is on its way. */
  loading: boolean;
  /** The list itself is being replaced (paging, filtering): nothing to append to yet. */
  waiting?: boolean;
  error: unknown;
  onLoadMore: () => void;
  /** Says what is shown instead of "Showing N transactions". */
  summary?: string;
  /** Said instead of the button when the list goes on but cannot grow here. */
  stopNote?: string | undefined;
}

/**
 * Under a list: how many rows are shown (announced as it grows), and "Load more", which
 * appends the next page. While a page loads the button stays focused and ignores presses
 * (aria-disabled rather than disabled, which would drop a keyboard user's focus); a failed
 * page shows its error and a Retry, and the rows already shown stay. When the last page
 * arrives the button goes, and its focus moves to the count rather than to the page's top.
 */
export function LoadMore(props: LoadMoreProps) {
  const { shown, noun, hasMore, loading, waiting, error, onLoadMore, summary, stopNote } = props;
  const inactive = loading || waiting;
  const status = useRef<HTMLParagraphElement>(null);
  const focusLost = useRef(false);
  const showButton = !error && hasMore;
  // Called as the button leaves: was the focus on it?
  const buttonRef = useCallback(
    (button: HTMLButtonElement | null) => () => {
      focusLost.current = document.activeElement === button;
    },
    [],
  );
  useEffect(() => {
    if (!showButton && focusLost.current) status.current?.focus();
    focusLost.current = false;
  }, [showButton]);
  return (
    <div className="load-more">
      <p role="status" ref={status} tabIndex={-1}>
        <span data-testid="loaded-count">
          {summary ?? `Showing ${count.format(shown)} ${shown === 1 ? noun[0] : noun[1]}`}
        </span>
        {loading ? ' · Loading more…' : ''}
      </p>
      {error ? (
        <ErrorState error={error} onRetry={onLoadMore} />
      ) : hasMore ? (
        <button
          type="button"
          ref={buttonRef}
          aria-disabled={inactive || undefined}
          onClick={() => {
            if (!inactive) onLoadMore();
          }}
        >
          Load more
        </button>
      ) : stopNote ? (
        <p className="muted">{stopNote}</p>
      ) : null}
    </div>
  );
}

/** "Showing 1–150, more available" / "Showing 1–132, end of list". */
export function rangeSummary(rows: number, more: boolean): string {
  const range = rows === 1 ? '1' : `1–${count.format(rows)}`;
  return `Showing ${range}, ${more ? 'more available' : 'end of list'}`;
}
