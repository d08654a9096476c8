import type { UpstreamTransaction } from '@card-console/shared/upstream/transaction';
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock';
import type { Who } from '../../platform/sessions/who';
import type { DeferredPage } from '../../upstream/client';
import { walkBudget } from '../../upstream/paginate';
import { type DateRange, walkRanges } from '../../upstream/ranged-walk';
import { WALK_LIMITS } from '../../upstream/walk-limits';
import type { FeatureDeps } from '../feature-deps';
import { type CsvRowOptions, toCsvRecord } from './csv-row';
import { csvLines } from './csv-text';
import { type TransactionFilter, toUpstreamParams } from './transactions-service';

export interface ExportRows {
  /** CSV lines (UTF-8, no header), one upstream page per chunk, in the file's order. */
  chunks: AsyncGenerator<Buffer>;
  /** Upstream pages asked for so far. */
  pagesRead(): number;
  /** Rows handed to the download so far. */
  rowsOut(): number;
}

/** Date ranges walked at once: at most this many upstream requests in flight per export. */
export const EXPORT_WALKS = 2;
/**
 * Pages one range may read ahead of the download; a range is sized to about this many pages.
 * A further range starts only while all of them together hold fewer than twice this, so an
 * export holds at most about four times this many pages, as CSV bytes (~8 KB a page here).
 */
export const EXPORT_PAGES_AHEAD = 16;

type Page = DeferredPage<UpstreamTransaction>;

/** One upstream page as CSV lines, made as soon as it arrives. */
interface Chunk {
  bytes: Buffer;
  rows: number;
}

/** One range's cursor walk, reading ahead into `pages` while the download takes others. */
interface Walk {
  pages: Chunk[];
  /** Read to its last page, failed, or stopped. */
  ended: boolean;
  error?: unknown;
}

/**
 * Walks every upstream page of a filter.
 *
 * The first page of the whole filter is read (and its items checked) before anything is sent,
 * so an early failure is still a normal error answer. Then it is a ranged walk
 * (`upstream/ranged-walk.ts`): if that page is the only one, that is the export; otherwise the
 * filter is split into date ranges sized from it and `EXPORT_WALKS` of them are walked at
 * once, each with its own cursor: with one walk every page waits for the one before it, so
 * the service's answer time caps the export. The first page is not reused (its cursor covers
 * the whole filter): a split export asks for that page again, plus each range's last, partly
 * full page, a few percent in all. The walk is bounded (`WALK_LIMITS.export`: a page cap and
 * a time budget, measured by the app's clock): an endless list ends the download with an error.
 *
 * Rows go out range by range, newest range first, each range in the service's order; with a
 * service that lists newest first (the simulator does) that is exactly the file one walk
 * gives. Each page is checked against its schema and made CSV on arrival, after the next
 * page has been asked for; memory stays bounded (`EXPORT_PAGES_AHEAD`). That work waits its
 * turn (`createTurns`), so every export of this service together takes one page per turn of
 * the event loop and other people's requests are served in between. `signal` (the
 * browser went away) or the download ending early stops every walk and aborts the requests
 * in flight.
 */
export function createExportService({
  upstream,
  clock,
  logger,
}: Pick<FeatureDeps, 'upstream'> & { clock?: Pick<Clock, 'now'>; logger?: Pick<Logger, 'warn'> }) {
  const turns = createTurns();
  return {
    /** `format`: the zone and card names the file is written with (default: UTC, no names). */
    async open(
      who: Who,
      filter: TransactionFilter,
      signal: AbortSignal,
      format?: CsvRowOptions,
    ): Promise<ExportRows> {
      const stop = new AbortController();
      const stopNow = () => stop.abort();
      signal.addEventListener('abort', stopNow, { once: true });
      // A bulk walk: its retries come from their own budget, never from people's reads'.
      const ctx = {
        requestId: who.requestId,
        trace: who.trace,
        role: who.actor.role,
        signal: stop.signal,
        bulk: true,
      };
      const budget = walkBudget(WALK_LIMITS.export, clock ? { now: () => clock.now() } : {});
      let rowsOut = 0;
      const fetchPage = (ask: DateRange, cursor?: string) => {
        const params = toUpstreamParams(filter, cursor);
        if (ask.from !== undefined) params.fromDate = ask.from;
        if (ask.to !== undefined) params.toDate = ask.to;
        return upstream.listTransactionsDeferred(ctx, params);
      };

      let first: Page;
      try {
        first = await budget.read(() => fetchPage({}));
        first.items(); // an unexpected first page is a normal 502, before the download starts
      } catch (error) {
        signal.removeEventListener('abort', stopNow);
        throw error;
      }

      const walks: Walk[] = [];
      let waiters: (() => void)[] = [];
      /** Something changed (a page arrived or was taken, a walk ended): everyone looks again. */
      const poke = () => {
        const woken = waiters;
        waiters = [];
        for (const wake of woken) wake();
      };
      const changed = () => new Promise<void>((resolve) => waiters.push(resolve));
      stop.signal.addEventListener('abort', poke, { once: true });
      const held = () => walks.reduce((n, w) => n + w.pages.length, 0);
      /** Whether `walk` may ask for another page, with `coming` pages about to join its own. */
      const mayRead = (walk: Walk, coming: number) =>
        walk.pages.length + coming < EXPORT_PAGES_AHEAD;

      const pace = upstream.pace?.walk('asked');
      void walkRanges({
        span: { from: filter.from, to: filter.to },
        first,
        page: fetchPage,
        dateOf: (t) => Date.parse(t.date),
        keyOf: (t) => t.id,
        ...(logger ? { log: logger } : {}),
        atOnce: EXPORT_WALKS,
        pagesPerRange: EXPORT_PAGES_AHEAD,
        ...(pace ? { pace } : {}),
        budget,
        signal: stop.signal,
        // A further range starts only while all of them together hold fewer than twice a
        // range's read-ahead.
        mayStart() {
          if (held() < 2 * EXPORT_PAGES_AHEAD) return undefined;
          return (async () => {
            while (held() >= 2 * EXPORT_PAGES_AHEAD && !stop.signal.aborted) await changed();
          })();
        },
        range() {
          const walk: Walk = { pages: [], ended: false };
          walks.push(walk);
          poke();
          return {
            // Ask for the next page before checking and formatting this one: the two overlap.
            ahead: () => mayRead(walk, 1),
            async take(rows) {
              await turns.next();
              walk.pages.push(toChunk(rows(), format));
              poke();
              while (!mayRead(walk, 0) && !stop.signal.aborted) await changed();
            },
            done() {
              walk.ended = true;
              poke();
            },
          };
        },
      }).then(
        () => {
          outcome = { failed: false };
          poke();
        },
        (error: unknown) => {
          // Every range not walked to its end ends with the failure: the download gives what
          // came before it, in order, then fails.
          for (const walk of walks) {
            if (walk.ended) continue;
            walk.ended = true;
            walk.error = error;
          }
          outcome = { failed: true, error };
          poke();
        },
      );
      /** How the walk of every range ended, once it has. */
      let outcome: { failed: boolean; error?: unknown } | undefined;

      async function* chunks(): AsyncGenerator<Buffer> {
        try {
          for (;;) {
            if (stop.signal.aborted) return;
            const walk = walks[0];
            if (!walk) {
              // No range under way: the next is being planned, or the walk has ended.
              if (outcome?.failed) throw outcome.error;
              if (outcome) return;
              await changed();
              continue;
            }
            const chunk = walk.pages.shift();
            if (chunk) {
              poke();
              rowsOut += chunk.rows;
              yield chunk.bytes;
            } else if (walk.error !== undefined) {
              throw walk.error;
            } else if (walk.ended) {
              walks.shift();
              poke();
            } else {
              await changed();
            }
          }
        } finally {
          // Done, failed or abandoned: stop every walk and the requests in flight.
          stop.abort();
          signal.removeEventListener('abort', stopNow);
        }
      }
      return { chunks: chunks(), pagesRead: () => budget.pages(), rowsOut: () => rowsOut };
    },
  };
}

/**
 * A page's rows (checked, and within its range) as CSV bytes. Made on arrival so a page
 * waiting its turn is one buffer outside the JS heap, not thousands of short-lived objects
 * the young-generation collector would copy on every pass.
 */
function toChunk(items: UpstreamTransaction[], format?: CsvRowOptions): Chunk {
  const records = items.map((t) => toCsvRecord(t, format));
  return { bytes: Buffer.from(csvLines(records)), rows: items.length };
}

/**
 * One page per turn of the event loop for every export together: each `next()` resolves in a
 * later turn's check phase, after that turn's I/O (other people's requests and their upstream
 * answers). Checking and formatting pages as they arrived let two exports' four walks fill
 * each turn, and other people's reads waited behind them at every step (`pnpm bench
 * export-storm`). A lone export loses nearly nothing: an idle loop turns in microseconds.
 */
function createTurns() {
  const waiting: (() => void)[] = [];
  let scheduled = false;
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      waiting.shift()?.();
      if (waiting.length) schedule();
    });
  };
  return {
    next: () =>
      new Promise<void>((resolve) => {
        waiting.push(resolve);
        schedule();
      }),
  };
}
