import { AppError } from '../http/app-error';
import type { DeferredPage } from './client';

/**
 * Walks a cursor-paged list from its first page to its end, one cursor after another: each
 * next page is asked for before this one is checked and handed to `take`, so the two overlap.
 * A cursor that does not move is a 502 (it would loop forever). `stopped`, asked after each
 * page, ends the walk early; the answer says whether it reached the end.
 */
export async function walkPages<T>(
  first: DeferredPage<T>,
  nextPage: (cursor: string) => Promise<DeferredPage<T>>,
  take: (items: T[]) => void,
  stopped: () => boolean = () => false,
): Promise<boolean> {
  let page = first;
  let previous: string | undefined;
  for (;;) {
    const cursor = page.metadata.nextCursor;
    if (cursor !== undefined && cursor === previous) {
      throw new AppError(502, 'upstream_invalid_response', 'The card service repeated a page.');
    }
    previous = cursor;
    const next = cursor === undefined ? undefined : nextPage(cursor);
    next?.catch(() => {}); // awaited below, unless this page fails its check first
    take(page.items());
    if (stopped()) return false;
    if (!next) return true;
    page = await next;
  }
}
