import type { PagedList } from '../lib/use-url-pages';
import { LoadMore, rangeSummary } from './load-more';

interface PagedListFooterProps {
  list: PagedList<unknown>;
  /** What a row is, singular and plural. */
  noun: readonly [string, string];
  /** The list shown is the previous filter's while the new one loads. */
  busy: boolean;
  /** Where to look when the list reaches the most pages it shows (narrower filters, CSV). */
  capHint: string;
}

/** Under a list paged by `useUrlPages`: which rows are shown, and "Load more". */
export function PagedListFooter({ list, noun, busy, capHint }: PagedListFooterProps) {
  return (
    <LoadMore
      shown={list.rows.length}
      noun={noun}
      hasMore={list.hasMore && !list.atCap}
      loading={list.loadingMore}
      waiting={busy}
      error={list.loadMoreError}
      onLoadMore={list.loadMore}
      summary={rangeSummary(list.rows.length, list.hasMore)}
      stopNote={list.atCap ? `This list shows at most ${list.pages} pages. ${capHint}` : undefined}
    />
  );
}
