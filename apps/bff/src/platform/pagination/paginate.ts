import { AppError } from '../../core/app-error';
import type { WalkPace } from './pace';
import { nothingNew, repeatedPage, type WalkBudget } from './walk-budget';

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
 * - One rule for a source that hands out fresh cursors to nothing new (`keysOf` given): after
 *   `STALE_PAGES` pages in a row that bring no row the walk's last `KEY_WINDOW_PAGES` pages did
 *   not already bring (empty pages with a next cursor among them), the walk fails with the
 *   source's `repeated` error, saying so. A healthy walk, however long, always brings new rows.
 * - Every walk is bounded by its `WalkBudget` (a page cap and a time budget).
 * - The next page is asked for before this one is handed over (unless `prefetch` says not
 *   now), so the service's answer time and the consumer's work on a page overlap.
 * - `pace` paces the pages: each waits for its turn (`pace.ts`, shared by every walk of the
 *   source, grows while it answers and backs off when it is busy or slow), and a page the
 *   source was too busy for is asked for again after the wait it asked for.
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
  /** The keys of a page's rows (their ids): what tells a page with nothing new. */
  keysOf?(page: P): readonly string[];
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
  const novelty = o.keysOf ? noveltyOf(o.keysOf, o.budget) : undefined;
  let page = typeof o.first === 'function' ? await ask(o.first as () => Promise<P>) : o.first;
  for (;;) {
    const cursor = o.cursorOf(page) || undefined;
    if (cursor !== undefined) {
      if (seen.has(cursor)) throw repeatedPage(o.budget.source);
      seen.add(cursor);
      novelty?.(page);
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

/** Pages in a row with nothing new, with a next cursor still, that end a walk. */
export const STALE_PAGES = 20;
/** How many pages back a row counts as already brought. */
export const KEY_WINDOW_PAGES = 100;

/**
 * Checks each page that names a next page for a row the last `KEY_WINDOW_PAGES` pages did not
 * bring, and fails the walk after `STALE_PAGES` such pages in a row. The keys of that many
 * pages are kept (5,000 ids at 50 a page), not the whole walk's.
 */
function noveltyOf<P>(keysOf: (page: P) => readonly string[], budget: WalkBudget) {
  const held = new Map<string, number>();
  const recent: (readonly string[])[] = [];
  let stale = 0;
  return (page: P) => {
    const keys = keysOf(page);
    let fresh = false;
    for (const key of keys) if (!held.has(key)) fresh = true;
    for (const key of keys) held.set(key, (held.get(key) ?? 0) + 1);
    recent.push(keys);
    if (recent.length > KEY_WINDOW_PAGES) {
      for (const key of recent.shift() ?? []) {
        const left = (held.get(key) ?? 1) - 1;
        if (left === 0) held.delete(key);
        else held.set(key, left);
      }
    }
    stale = fresh ? 0 : stale + 1;
    if (stale >= STALE_PAGES) throw nothingNew(budget, stale);
  };
}

/**
 * Times a page that came back busy is asked for again, each after the wait it asked for (the
 * pace holds every turn until then): a walk slows down for a source at its rate limit, and
 * ends only when the source stays busy.
 */
export const BUSY_REASKS = 6;

/**
 * A page read in its turn of the pace, its answer (or its failure) told to the pace. A page the
 * source was too busy for (a 503 that names a wait, after the client's own retries) is asked
 * for again, up to `BUSY_REASKS` times.
 */
export function paced<P>(
  pace: WalkPace,
  read: (ask: () => Promise<P>) => Promise<P>,
  signal: AbortSignal | undefined,
): (ask: () => Promise<P>) => Promise<P> {
  return async (ask) => {
    for (let tries = 0; ; tries += 1) {
      const turn = await pace.turn(signal);
      const started = performance.now();
      try {
        const page = await read(ask);
        turn.answered(performance.now() - started);
        return page;
      } catch (error) {
        const waitMs = busyWait(error);
        turn.failed(
          waitMs !== undefined
            ? { waitMs }
            : error instanceof AppError && error.status >= 502
              ? {}
              : undefined,
        );
        if (waitMs === undefined || tries >= BUSY_REASKS || signal?.aborted) throw error;
      }
    }
  };
}

/**
 * The wait a source that said "come back later" asked for: a 503 that names one (the card
 * client's answer to a 429 past its retries, to an open circuit, to a hold past a deadline).
 */
function busyWait(error: unknown): number | undefined {
  if (!(error instanceof AppError) || error.retryAfterSeconds === undefined) return undefined;
  return error.status === 503 ? error.retryAfterSeconds * 1000 : undefined;
}

const prefetching = (rule: PaginateOptions<unknown>['prefetch']) =>
  typeof rule === 'function' ? rule() : (rule ?? true);
