import type { InfiniteData, UseInfiniteQueryResult } from '@tanstack/react-query';
import { useEffect, useMemo } from 'react';
import { MAX_PAGES } from './search-params';

/** A page of a cursor-paged list, as every BFF list answers. */
export interface CursorPage<T> {
  items: readonly T[];
  nextCursor?: string | undefined;
}

/** The rows a list shows: its first `pages` pages, as many as the URL says. */
export interface PagedList<T> {
  rows: readonly T[];
  /** Pages shown, from the first. */
  pages: number;
  /** The list goes on after the rows shown. */
  hasMore: boolean;
  /** More exists, but the list already shows as many pages as a link may reopen. */
  atCap: boolean;
  /** A page is on its way (a press of "Load more", or pages a link asks for). */
  loadingMore: boolean;
  /** The last page asked for failed: shown with a Retry, the rows so far stay. */
  loadMoreError: unknown;
  /** Shows the next page: from the cache when it holds it, else fetched, then in the URL. */
  loadMore: () => void;
}

/**
 * "Load more" whose extent lives in the URL (`pages=3`). The query holds every page loaded
 * from the first; the screen shows as many as the URL says, so Back, Forward, a reload and a
 * shared link show the same rows: pages the cache lacks are fetched one after another from
 * the first. A page joins the URL (replacing the entry, so Back leaves the list) only once it
 * has arrived; a failed one leaves the URL as it was.
 */
export function useUrlPages<T>(
  query: UseInfiniteQueryResult<InfiniteData<CursorPage<T>, unknown>, Error>,
  wanted: number,
  showPages: (pages: number) => void,
): PagedList<T> | undefined {
  const { data, isPlaceholderData, isFetching, isFetchingNextPage, fetchNextPage } = query;
  const failed = query.isFetchNextPageError;
  const loaded = data?.pages.length ?? 0;
  // A list the cache holds longer than the URL says (a link to fewer pages) shows that many.
  const shown = Math.min(Math.max(wanted, 1), loaded);
  const rows = useMemo(
    () => data?.pages.slice(0, shown).flatMap((page) => page.items) ?? [],
    [data, shown],
  );
  const lastLoadedNext = data?.pages.at(-1)?.nextCursor;

  // A link or a return asked for more pages than the cache holds: fetch the rest in order.
  const missing = !isPlaceholderData && loaded > 0 && loaded < wanted && lastLoadedNext;
  useEffect(() => {
    if (missing && !isFetching && !failed) void fetchNextPage({ cancelRefetch: false });
  }, [missing, isFetching, failed, fetchNextPage]);

  if (!data) return undefined;
  const hasMore = shown < loaded || data.pages[shown - 1]?.nextCursor !== undefined;
  return {
    rows,
    pages: shown,
    hasMore,
    atCap: hasMore && shown >= MAX_PAGES,
    loadingMore: isFetchingNextPage,
    loadMoreError: failed && !isPlaceholderData ? query.error : undefined,
    loadMore: () => {
      // One request at a time; never past the cap, nor on the previous filter's rows.
      if (isFetchingNextPage || isPlaceholderData || !hasMore || shown >= MAX_PAGES) return;
      const next = shown + 1;
      if (shown < loaded) {
        showPages(next);
        return;
      }
      void fetchNextPage({ cancelRefetch: false }).then((result) => {
        // A retry of pages a link asked for: the URL already says as much.
        if (!result.isError && wanted < next) showPages(next);
      });
    },
  };
}
