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
}

/**
 * Under a list: how many rows are shown (announced as it grows), and "Load more", which
 * appends the next page. While a page loads the button stays focused and ignores presses
 * (aria-disabled rather than disabled, which would drop a keyboard user's focus); a failed
 * page shows its error and a Retry, and the rows already shown stay.
 */
export function LoadMore(props: LoadMoreProps) {
  const { shown, noun, hasMore, loading, waiting, error, onLoadMore } = props;
  const inactive = loading || waiting;
  return (
    <div className="load-more">
      <p role="status">
        <span data-testid="loaded-count">
          Showing {count.format(shown)} {shown === 1 ? noun[0] : noun[1]}
        </span>
        {loading ? ' · Loading more…' : ''}
      </p>
      {error ? (
        <ErrorState error={error} onRetry={onLoadMore} />
      ) : hasMore ? (
        <button
          type="button"
          aria-disabled={inactive || undefined}
          onClick={() => {
            if (!inactive) onLoadMore();
          }}
        >
          Load more
        </button>
      ) : null}
    </div>
  );
}
