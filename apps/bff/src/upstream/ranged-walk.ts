import type { UpstreamTransaction } from '@card-console/shared/upstream/transaction';
import type { Logger } from 'pino';
import { AppError } from '../core/app-error';
import { abortable, onAbort } from '../platform/abort-fan-out';
import type { WalkPace } from '../platform/pagination/pace';
import type { CallContext, DeferredPage, TransactionListParams, UpstreamClient } from './client';
import { createRangePlanner, type DateRange } from './date-ranges';
import { paced, paginate, type WalkBudget } from './paginate';

export type { DateRange } from './date-ranges';

/** Where a range's page sits: what the range asks for and keeps, and the page after it. */
export interface RangePage {
  /** The dates asked for (one millisecond past `keep.to` for a range below another). */
  ask: DateRange;
  /** The dates the range keeps. */
  keep: DateRange;
  /** The cursor of the range's next page; absent: this page was its last. */
  next?: string;
}

/**
 * Where one range's rows go. Ranges are handed out newest first, in the order they are
 * planned, which is the order a service listing newest first would list their rows in.
 */
export interface RangeSink<T> {
  /**
   * One page of the range, in the service's order: `rows()` checks its items against their
   * schema (a 502 if they do not match) and keeps those within the range. The walk asks for
   * the range's next page once this resolves (or before, see `ahead`).
   */
  take(rows: () => T[], page: RangePage): void | Promise<void>;
  /** Whether the page after this one may be asked for before this one is taken (default yes). */
  ahead?(): boolean;
  /** The range was walked to its end, `rows` rows in all. */
  done?(rows: number): void | Promise<void>;
}

export interface RangedWalkOptions<T> {
  /** The whole span, inclusive Unix ms; an absent bound is open (the service's own). */
  span: DateRange;
  /** The whole span's first page when already read (so its failure came early); else read here. */
  first?: DeferredPage<T>;
  /** One page within `ask` (inclusive bounds to send; absent: the span's own), from `cursor`. */
  page(ask: DateRange, cursor?: string): Promise<DeferredPage<T>>;
  /** A row's date, in Unix ms. */
  dateOf(item: T): number;
  /**
   * A row's id: with it, a range whose pages bring nothing new (fresh cursors to the same rows,
   * or to empty pages) fails the walk (`paginate`'s `keysOf`).
   */
  keyOf?(item: T): string;
  /** Told of the rows dropped for being dated outside the dates asked for, once the walk ends. */
  log?: Pick<Logger, 'warn'>;
  /** Ranges walked at once at most, each with its own cursor. */
  atOnce: number;
  /**
   * A range is sized to about this many pages at most, from the density seen so far. A paced
   * walk sizes them smaller where the span is short for its ranges at once
   * (`rangePages`), so every range can be open at once and a stopped walk loses little.
   */
  pagesPerRange: number;
  /**
   * A paced range is sized to this many pages at least (default `FEWEST_RANGE_PAGES`). Each
   * range ends with a part-full page, and a span open below its rows (a history shorter than
   * the span) costs a page per empty range: a walk no one waits for (the index sync) asks for
   * fewer, longer ranges; one a person waits for (the Overview) for more, shorter ones.
   */
  fewestPagesPerRange?: number;
  /**
   * A paced walk's first (newest) range is sized to this many pages instead (default the
   * others' size): a walk whose ranges are written as they end (the index sync) then holds its
   * newest days after a page or two, where a person is looking, not after a whole range.
   */
  firstRangePages?: number;
  /** Moves a range's lower bound down onto a boundary (a day's start), so ranges are whole days. */
  align?: (ms: number) => number;
  /** The walk's page cap and time budget, shared by every range. */
  budget: WalkBudget;
  /**
   * The pace of the card service's walks (`platform/pagination/pace.ts`): every page waits for
   * its turn and every range for a range slot, so the walks together ask for what the service
   * lets through. Default none: `atOnce` ranges, each page asked for as soon as it may be.
   */
  pace?: WalkPace;
  /** Aborting it stops every range; the walk then rejects with its reason. */
  signal?: AbortSignal;
  /** The span's first page (checked) and whether more follow it, before any range is walked. */
  sized?(items: T[], more: boolean): void;
  /** Undefined when another range may begin now, else a promise of when (room for its pages). */
  mayStart?(): Promise<void> | undefined;
  /** A range about to be walked: where its rows go. */
  range(range: DateRange): RangeSink<T>;
}

/**
 * Walks every row of a date span of one cursor-paged list, as several date ranges at once.
 *
 * The card service pages with cursors, so one walk is one page after another and the
 * service's answer time caps it. So: the first page of the whole span is read; if it is the
 * only one (or holds no rows to size ranges by), the span is one range, walked on from that
 * page. Otherwise the span is split into ranges sized from the density seen (`date-ranges.ts`,
 * newest first), and `atOnce` of them are walked at once, each its own `paginate` walk under
 * the one shared budget: `atOnce` walkers each take the next range when they finish one, so
 * every range is planned only then, sized from the ranges walked before it. (Not `p-limit`:
 * the ranges are not a list known up front, and its queue would put a turn of the microtask
 * queue before each range's first request, which an export's first pages notice.) A first
 * range that is the whole span is the first page's own walk; otherwise that page is not reused
 * (its cursor covers the whole span).
 *
 * With a `pace` (the card service's, shared by every walk), every page waits for its turn and
 * every range for a range slot, so the ranges open at once across walks follow what the service
 * lets through, and ranges are sized smaller (`rangePages`) so a span's ranges can all be open.
 *
 * Ranges touch without overlapping, so every row is in exactly one. A range below another is
 * asked for one millisecond more (`to` + 1) and keeps only rows at or before its bound: a
 * service that keeps finer dates than milliseconds has rows between two whole milliseconds,
 * which inclusive bounds that touch, (…, b] and [b + 1, …), would both leave out. Rows within
 * the extra millisecond belong to the range above, which starts at b + 1 inclusive.
 *
 * The first failure stops every range (a range stopped so never reports `done`) and rejects
 * at once; the caller aborts whatever it still has in flight.
 */
export async function walkRanges<T>(o: RangedWalkOptions<T>): Promise<void> {
  const halt = new AbortController();
  const stopOnAbort = () => halt.abort(o.signal?.reason);
  if (o.signal?.aborted) stopOnAbort();
  // One listener on the caller's signal however many walks share it (a first sync walks every
  // sub account at once, each carrying the shutdown's cut-off): one each made Node warn of a
  // leak (MaxListenersExceededWarning) past ten.
  const stopListening = o.signal ? onAbort(o.signal, stopOnAbort) : () => {};
  const outside: Outside = { rows: 0, pages: 0 };
  try {
    await walk(o, halt, outside);
  } finally {
    stopListening();
    logDropped(o.log, outside, o.span);
  }
}

/** Tells `log` of the rows a walk of `dates` dropped for being dated outside them, if any. */
function logDropped(log: Pick<Logger, 'warn'> | undefined, outside: Outside, dates: DateRange) {
  if (outside.rows === 0) return;
  log?.warn(
    { dropped: outside.rows, pages: outside.pages, from: dates.from, to: dates.to },
    'rows dated outside the dates asked for were dropped',
  );
}

/** Rows a walk was sent dated outside the dates it asked for, and on how many pages. */
interface Outside {
  rows: number;
  pages: number;
}

/**
 * Pages with rows dated outside the dates asked for that end a walk: the card service is not
 * filtering by date (its contract: inclusive at both ends), so every range would read rows that
 * are not its own, and the ranges together the whole history many times over.
 */
export const OUTSIDE_PAGES = 3;

async function walk<T>(
  o: RangedWalkOptions<T>,
  halt: AbortController,
  outside: Outside,
): Promise<void> {
  const span = bounded(o.span.from, o.span.to);
  const read = (ask: () => Promise<DeferredPage<T>>) => o.budget.read(ask, halt.signal);
  const first =
    o.first ?? (await (o.pace ? paced(o.pace, read, halt.signal) : read)(() => o.page(span)));
  const firstItems = first.items();
  const more = first.metadata.nextCursor !== undefined;
  o.sized?.(firstItems, more);
  const dates = firstItems.map(o.dateOf);
  const pages = o.pace
    ? rangePages(span, dates, o.atOnce, o.pagesPerRange, o.fewestPagesPerRange)
    : o.pagesPerRange;
  // A paced span of about two ranges' pages or fewer (the days a stopped sync left between the
  // ones it finished) is one range, walked on from its first page rather than asked for again.
  const short =
    o.pace !== undefined && (spanPages(span, dates) ?? Number.POSITIVE_INFINITY) <= 2 * pages;
  if (!more || firstItems.length === 0 || short) {
    // One page, or a service paging through nothing: the span as it comes.
    await walkRange(o, boundsOf(o.span, span), first, o.range(span), halt.signal, outside);
    return;
  }

  const planner = createRangePlanner(
    span,
    { dates },
    pages * firstItems.length,
    o.align,
    o.pace && o.firstRangePages !== undefined ? o.firstRangePages * firstItems.length : undefined,
  );
  let planned = 0;
  const worker = async () => {
    while (!halt.signal.aborted) {
      const wait = o.mayStart?.();
      if (wait) await abortable(wait, halt.signal);
      const release = o.pace ? await o.pace.range(halt.signal) : undefined;
      try {
        const range = planner.next();
        if (!range) return;
        const whole = planned === 0 && range.from === span.from && range.to === span.to;
        planned += 1;
        const sink = o.range(range);
        const rows = await walkRange(
          o,
          boundsOf(o.span, range),
          whole ? first : undefined,
          sink,
          halt.signal,
          outside,
        );
        planner.walked(range, rows);
      } finally {
        release?.();
      }
    }
  };
  const workers = Array.from({ length: o.atOnce }, () =>
    worker().catch((error: unknown) => {
      if (!halt.signal.aborted) halt.abort(error);
      throw error;
    }),
  );
  await new Promise<void>((resolve, reject) => {
    const stopped = () => reject(halt.signal.reason);
    if (halt.signal.aborted) return stopped();
    // The first failure (or the caller's abort) rejects at once, not when every walker ends.
    halt.signal.addEventListener('abort', stopped, { once: true });
    Promise.all(workers).then(
      () => (halt.signal.aborted ? stopped() : resolve()),
      () => {},
    );
  });
}

/**
 * Goes on with one range of an earlier walk from `cursor` (its kept pages' last), to its end:
 * with a `pace`, in a range slot of its own and each page in its turn, as `walkRanges`' ranges.
 * Its rows are checked as theirs are; aborting `signal` stops it. Returns the rows it read.
 */
export async function continueRange<T>(
  o: WalkOptions<T> & Pick<RangedWalkOptions<T>, 'log' | 'signal'>,
  bounds: Pick<RangePage, 'ask' | 'keep'>,
  cursor: string,
  sink: RangeSink<T>,
): Promise<number> {
  const signal = o.signal ?? new AbortController().signal;
  const outside: Outside = { rows: 0, pages: 0 };
  const release = o.pace ? await o.pace.range(signal) : undefined;
  try {
    return await walkRange(o, bounds, { cursor }, sink, signal, outside);
  } finally {
    release?.();
    logDropped(o.log, outside, bounds.keep);
  }
}

/**
 * Ranges a paced walk may walk at once: as many as the pace's ceiling, as the pace's range
 * slots (shared by every walk) decide how many are open, not each walk.
 */
export const PACED_RANGES_AT_ONCE = 32;

/**
 * A paced range is this many pages at least, unless its walk says otherwise: its first page is
 * a fresh query, more or less full.
 */
export const FEWEST_RANGE_PAGES = 2;
/**
 * Ranges a paced span is cut in, per range at once. Each range ends with a part-full page, so
 * fewer, longer ranges ask fewer pages. Two were cut while a stopped index sync lost what its
 * open ranges had read; since it keeps their pages (`index-sync.ts`), one: the demo's first
 * sync asks 471–477 pages instead of 529–530, and a cold Overview of a year 483 instead of 542
 * (`pnpm bench remote-card-service`, 2026-12-03).
 */
const RANGES_PER_SLOT = 1;

/**
 * Pages a range of a paced walk is sized to: the span's pages, as the first page's density
 * tells, shared out over `RANGES_PER_SLOT` × `atOnce` ranges, within `fewest` and `most`. A span
 * open at either end: `most`.
 */
export function rangePages(
  span: DateRange,
  dates: number[],
  atOnce: number,
  most: number,
  fewest = FEWEST_RANGE_PAGES,
): number {
  const pages = spanPages(span, dates);
  if (pages === undefined) return most;
  const share = Math.ceil(pages / (RANGES_PER_SLOT * Math.max(1, atOnce)));
  return Math.min(most, Math.max(fewest, share));
}

/** About how many pages `span` holds, from its first page's dates; undefined: open, or none. */
export function spanPages(span: DateRange, dates: number[]): number | undefined {
  if (span.from === undefined || span.to === undefined || dates.length === 0) return undefined;
  const spread = Math.max(...dates) - Math.min(...dates) + 1;
  return (span.to - span.from + 1) / spread;
}

/** What a range of `span` asks for and keeps (see `walkRanges` on the extra millisecond). */
function boundsOf(span: DateRange, range: DateRange): Pick<RangePage, 'ask' | 'keep'> {
  const cut = range.to !== undefined && range.to !== span.to ? range.to : undefined;
  return {
    ask: bounded(range.from, cut === undefined ? range.to : cut + 1),
    keep: bounded(range.from, cut ?? range.to),
  };
}

type WalkOptions<T> = Pick<RangedWalkOptions<T>, 'page' | 'dateOf' | 'keyOf' | 'budget' | 'pace'>;

/**
 * One range's cursor walk from `start`: its first page already read, a cursor to go on from,
 * or (absent) its own first page; returns its rows.
 */
async function walkRange<T>(
  o: WalkOptions<T>,
  { ask, keep }: Pick<RangePage, 'ask' | 'keep'>,
  start: DeferredPage<T> | { cursor: string } | undefined,
  sink: RangeSink<T>,
  signal: AbortSignal,
  outside: Outside,
): Promise<number> {
  let rows = 0;
  const keyOf = o.keyOf;
  const first =
    start === undefined
      ? () => o.page(ask)
      : 'cursor' in start
        ? () => o.page(ask, start.cursor)
        : start;
  const pages = paginate({
    first,
    next: (cursor) => o.page(ask, cursor),
    cursorOf: (page) => page.metadata.nextCursor,
    ...(keyOf ? { keysOf: (page: DeferredPage<T>) => page.items().map(keyOf) } : {}),
    budget: o.budget,
    prefetch: sink.ahead ? () => sink.ahead?.() ?? true : true,
    ...(o.pace ? { pace: o.pace } : {}),
    signal,
  });
  for await (const page of pages) {
    let kept: T[] | undefined;
    const rowsOf = () => {
      kept ??= within(o, page.items(), keep, ask, outside);
      return kept;
    };
    const next = page.metadata.nextCursor;
    await sink.take(rowsOf, { ask, keep, ...(next === undefined ? {} : { next }) });
    rows += rowsOf().length;
  }
  signal.throwIfAborted();
  await sink.done?.(rows);
  return rows;
}

/**
 * A page's rows within `keep` (a range below another keeps none of the extra millisecond it
 * asks for). Rows outside `ask`, the dates asked for, are counted as the service's misbehaviour,
 * and a walk that has been sent them on `OUTSIDE_PAGES` pages fails.
 */
function within<T>(
  o: Pick<RangedWalkOptions<T>, 'dateOf'>,
  items: T[],
  keep: DateRange,
  ask: DateRange,
  outside: Outside,
): T[] {
  const from = keep.from ?? Number.NEGATIVE_INFINITY;
  const to = keep.to ?? Number.POSITIVE_INFINITY;
  if (items.every((t) => inside(o.dateOf(t), from, to))) return items;
  const kept: T[] = [];
  let strays = 0;
  for (const t of items) {
    const at = o.dateOf(t);
    if (inside(at, from, to)) kept.push(t);
    else if (!inside(at, ask.from ?? from, ask.to ?? to)) strays += 1;
  }
  if (strays > 0) {
    outside.rows += strays;
    outside.pages += 1;
    if (outside.pages >= OUTSIDE_PAGES) {
      throw new AppError(
        502,
        'upstream_invalid_response',
        `The card service sent ${outside.rows} transactions dated outside the dates asked for, so Card Console stopped reading: it is not filtering by date.`,
      );
    }
  }
  return kept;
}

const inside = (at: number, from: number, to: number) => at >= from && at <= to;

function bounded(from: number | undefined, to: number | undefined): DateRange {
  const range: DateRange = {};
  if (from !== undefined) range.from = from;
  if (to !== undefined) range.to = to;
  return range;
}

/**
 * The `page` of a ranged walk over one sub account's transactions (one card's, with `cardId`;
 * of one status, with `status`) within `span`: each range asks for its own bounds, the span's
 * where a range leaves one open.
 */
export function transactionPages(
  upstream: Pick<UpstreamClient, 'listTransactionsDeferred'>,
  ctx: CallContext,
  query: Pick<TransactionListParams, 'subAccountId' | 'cardId' | 'status'>,
  span: DateRange,
): RangedWalkOptions<UpstreamTransaction>['page'] {
  return (ask, cursor) =>
    upstream.listTransactionsDeferred(ctx, {
      ...query,
      fromDate: ask.from ?? span.from,
      toDate: ask.to ?? span.to,
      ...(cursor === undefined ? {} : { cursor }),
    });
}
