import { AppError } from '../../core/app-error';
import { abortableSleep } from '../abort-fan-out';
import type { WalkPace } from './pace';
import { repeatedPage, type WalkBudget } from './walk-budget';

/**
 * The one way the BFF walks a cursor-paged list (the card service's, or the audit trail's):
 * an async iterator over its pages, as Octokit's `paginate.iterator` or the AWS SDK's
 * paginators are:
 *
 *     for await (const page of paginate({ first, next, cursorOf, budget })) { … }
 *
 * - One rule for a stuck cursor: a next cursor this walk has already seen would loop (the
 *   same page again, or a cycle of pages), so the walk fails at once with the source's
 *   `repeated` error ("The card service repeated a page.").
 * - Every walk is bounded by its `WalkBudget` (a page cap and a time budget).
 * - The next page is asked for before this one is handed over (unless `prefetch` says not
 *   now), so the service's answer time and the consumer's work on a page overlap.
 * - `pace` spaces the pages out: it is asked for a gap before each next page and told how each
 *   answer went (`pace.ts`: an adaptive one backs off when the source says it is busy).
 * - Aborting `signal` ends the walk with the signal's reason, also while a page is awaited.
 *
 * Breaking out of the loop ends the walk; a page asked for ahead and no longer wanted is left
 * to settle on its own (its failure is ignored).
 */
export interface PaginateOptions<P> {
  /** The first page: already read, or how to read it (then counted against the budget). */
  first: P | (() => Promise<P>);
  /** The page after the one whose next cursor is `cursor`. */
  next(cursor: string): Promise<P>;
  /** A page's next cursor; undefined (or empty) on the last page. */
  cursorOf(page: P): string | undefined;
  budget: WalkBudget;
  /** Whether to ask for the next page before handing this one over (default: always). */
  prefetch?: boolean | (() => boolean);
  /** How the pages are spaced out (default: none, each asked for as soon as it may be). */
  pace?: WalkPace;
  signal?: AbortSignal;
}

export async function* paginate<P>(o: PaginateOptions<P>): AsyncGenerator<P, void, undefined> {
  const seen = new Set<string>();
  const read = (ask: () => Promise<P>) => o.budget.read(ask, o.signal);
  const ask = o.pace ? paced(o.pace, read, o.signal) : read;
  o.signal?.throwIfAborted();
  let page = typeof o.first === 'function' ? await ask(o.first as () => Promise<P>) : o.first;
  for (;;) {
    const cursor = o.cursorOf(page) || undefined;
    if (cursor !== undefined) {
      if (seen.has(cursor)) throw repeatedPage(o.budget.source);
      seen.add(cursor);
    }
    let next: Promise<P> | undefined;
    if (cursor !== undefined && prefetching(o.prefetch)) {
      next = ask(() => o.next(cursor));
      next.catch(() => {}); // awaited below, unless the walk ends first
    }
    yield page;
    if (cursor === undefined) return;
    o.signal?.throwIfAborted();
    page = await (next ?? ask(() => o.next(cursor)));
  }
}

/** A page read after the pace's gap, its answer (or a "busy") told to the pace. */
function paced<P>(
  pace: WalkPace,
  read: (ask: () => Promise<P>) => Promise<P>,
  signal: AbortSignal | undefined,
): (ask: () => Promise<P>) => Promise<P> {
  return async (ask) => {
    const gap = pace.gap();
    if (gap > 0) await abortableSleep(gap, signal);
    const started = performance.now();
    try {
      const page = await read(ask);
      pace.answered(performance.now() - started);
      return page;
    } catch (error) {
      // A source that said "come back later" (a 429 or 503 after the client's own retries).
      if (error instanceof AppError && error.retryAfterSeconds !== undefined) {
        pace.busy(error.retryAfterSeconds * 1000);
      }
      throw error;
    }
  };
}

const prefetching = (rule: PaginateOptions<unknown>['prefetch']) =>
  typeof rule === 'function' ? rule() : (rule ?? true);
