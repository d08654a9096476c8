import type { UpstreamTransaction } from '@card-console/shared/upstream/transaction';
import { AppError } from '../../http/app-error';
import type { Who } from '../../http/context';
import type { FeatureDeps } from '../../http/deps';
import type { DeferredPage } from '../../upstream/client';
import { type CsvRowOptions, toCsvRecord } from './csv-row';
import { csvLines } from './csv-text';
import { createRangePlanner, type DateRange } from './date-ranges';
import { type TransactionFilter, toUpstreamParams } from './transactions-service';

export interface ExportRows {
  /** CSV lines (UTF-8, no header), one upstream page per chunk, in the file's order. */
  chunks: AsyncGenerator<Buffer>;
  /** Upstream pages read so far. */
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
 * so an early failure is still a normal error answer. If it is the only page, that is the
 * export. Otherwise the walk is split into date ranges (`date-ranges.ts`) sized from that
 * page, and `EXPORT_WALKS` of them are walked at once, each with its own cursor: with one
 * walk every page waits for the one before it, so the service's answer time caps the export.
 * The first page is not reused (its cursor covers the whole filter): a split export asks for
 * that page again, plus each range's last, partly full page, a few percent in all.
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
export function createExportService({ upstream }: Pick<FeatureDeps, 'upstream'>) {
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
      let pages = 0;
      let rowsOut = 0;
      const fetchPage = async (range: DateRange | undefined, cursor?: string) => {
        const params = toUpstreamParams(filter, cursor);
        if (range) {
          params.fromDate = range.from;
          const cut = splitBelow(range, filter);
          params.toDate = cut === undefined ? range.to : cut + 1;
        }
        const page = await upstream.listTransactionsDeferred(ctx, params);
        pages += 1;
        return page;
      };

      let first: Page;
      let firstItems: UpstreamTransaction[];
      try {
        first = await fetchPage(undefined);
        firstItems = first.items(); // an unexpected first page is a normal 502, before the download starts
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

      const startWalk = (range: DateRange | undefined, from?: Page) => {
        const walk: Walk = { pages: [], ended: false };
        walks.push(walk);
        (async () => {
          let rows = 0;
          let page = from ?? (await fetchPage(range));
          let previous: string | undefined;
          for (;;) {
            const cursor = page.metadata.nextCursor;
            // A cursor that does not move would loop forever.
            if (cursor !== undefined && cursor === previous) {
              throw new AppError(
                502,
                'upstream_invalid_response',
                'The card service repeated a page.',
              );
            }
            previous = cursor;
            // Ask for the next page before checking and formatting this one: the two overlap.
            const next =
              cursor !== undefined && mayRead(walk, 1) ? fetchPage(range, cursor) : undefined;
            next?.catch(() => {}); // awaited below, unless this page fails its check first
            await turns.next();
            const chunk = toChunk(page, range && splitBelow(range, filter), format);
            rows += chunk.rows;
            walk.pages.push(chunk);
            poke();
            if (cursor === undefined || stop.signal.aborted) return cursor ? undefined : rows;
            if (next) page = await next;
            else {
              while (!mayRead(walk, 0) && !stop.signal.aborted) await changed();
              if (stop.signal.aborted) return undefined;
              page = await fetchPage(range, cursor);
            }
          }
        })().then(
          (rows) => {
            walk.ended = true;
            if (rows !== undefined && range) planner?.walked(range, rows);
            startMore();
            poke();
          },
          (error: unknown) => {
            walk.ended = true;
            walk.error = error;
            poke();
          },
        );
      };

      const split = first.metadata.nextCursor !== undefined && firstItems.length > 0;
      const planner = split
        ? createRangePlanner(
            filter,
            { dates: firstItems.map((t) => Date.parse(t.date)) },
            EXPORT_PAGES_AHEAD * firstItems.length,
          )
        : undefined;
      /** Starts ranges while fewer than EXPORT_WALKS read and there is room for their pages. */
      function startMore() {
        if (!planner || stop.signal.aborted) return;
        let reading = walks.filter((w) => !w.ended).length;
        while (reading < EXPORT_WALKS && held() < 2 * EXPORT_PAGES_AHEAD) {
          const range = planner.next();
          if (!range) return;
          // A first range that is the whole filter is the first page's own walk.
          const whole = walks.length === 0 && range.from === filter.from && range.to === filter.to;
          if (whole) startWalk(undefined, first);
          else startWalk(range);
          reading += 1;
        }
      }
      // One page, or a service that pages through nothing: walk the filter as it comes.
      if (planner) startMore();
      else startWalk(undefined, first);

      async function* chunks(): AsyncGenerator<Buffer> {
        try {
          for (;;) {
            const walk = walks[0];
            if (!walk || stop.signal.aborted) return;
            const chunk = walk.pages.shift();
            if (chunk) {
              poke();
              startMore();
              rowsOut += chunk.rows;
              yield chunk.bytes;
            } else if (walk.error !== undefined) {
              throw walk.error;
            } else if (walk.ended) {
              walks.shift();
              startMore();
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
      return { chunks: chunks(), pagesRead: () => pages, rowsOut: () => rowsOut };
    },
  };
}

/**
 * The upper bound of a range cut below another range (every range but the first), or
 * undefined. Such a range is asked for one millisecond more (`to_date` = bound + 1) and keeps
 * only rows whose date, in whole milliseconds, is at or before the bound: a service that keeps
 * finer dates (microseconds, say) has rows between two whole milliseconds, which inclusive
 * bounds that touch (…, b] and [b + 1, …) would both leave out. Rows within the extra
 * millisecond belong to the range above, which starts at bound + 1 inclusive.
 */
function splitBelow(range: DateRange, filter: TransactionFilter): number | undefined {
  return range.to !== undefined && range.to !== filter.to ? range.to : undefined;
}

/**
 * A page's rows as CSV bytes, checked against the schema first (and, in a range cut below
 * another, without the rows of the range above: `splitBelow`). Made on arrival so a page
 * waiting its turn is one buffer outside the JS heap, not thousands of short-lived objects
 * the young-generation collector would copy on every pass.
 */
function toChunk(page: Page, cut: number | undefined, format?: CsvRowOptions): Chunk {
  const checked = page.items();
  const items = cut === undefined ? checked : checked.filter((t) => Date.parse(t.date) <= cut);
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
