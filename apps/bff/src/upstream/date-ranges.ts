/**
 * Plans the date ranges of a split walk (`ranged-walk.ts`), newest first.
 *
 * The card service pages with cursors, so one walk is strictly one page after another. A
 * ranged walk reads several ranges of the filter's dates at once instead, each with its own cursor
 * and explicit inclusive bounds (`from_date`/`to_date`, whole milliseconds). The ranges touch
 * without overlapping and together cover the filter's dates, the first one open at the top
 * and the last open at the bottom (or bounded by the filter), so every row of the filter is
 * in exactly one range whatever order the service lists rows in.
 *
 * Sizes are guesses from the density seen so far (rows per millisecond): the first page of
 * the whole filter, then each range as it ends. A wrong guess only makes a range longer or
 * shorter; it never loses or repeats a row. Ranges end in any order; the density is the
 * oldest ended range's, the nearest to the ranges still to plan, and a range is at most twice
 * as wide as that one: a range that held a few rows (the edge of a gap, the last rows of a
 * history) would otherwise size the next one to the span's start, and whatever lies there would
 * be walked a page at a time. One that ends empty means the data is sparse there or over:
 * - with a floor (the filter's `from`: the index sync's days, the Overview's period), the ranges
 *   after it are twice as wide as it was, and twice again after the next empty one. A gap in
 *   the rows (a weekend with no spend, a quiet month) costs a few pages that answer nothing, and
 *   the end of the data one per doubling down to the floor. (The split used to end at the first
 *   empty range: whatever lay below it, the rest of a long dense history after one quiet day,
 *   was walked as one range, a page at a time.)
 * - open at the bottom (an export of all dates), the next range is the last, open at the
 *   bottom: doubling down to 1970 would cost a dozen empty pages every such walk.
 */
/**
 * The earliest bound a range is given: 0000-01-01T00:00:00Z, the first day an ISO date with a
 * four-digit year (as the card service writes dates) can name, and well inside what a JavaScript
 * date holds, so the walks' day alignment (through ISO dates) works at every bound.
 */
const EARLIEST_DATE_MS = -62_167_219_200_000;

export interface DateRange {
  /** Inclusive lower bound in Unix ms; absent: the filter's own (or none). */
  from?: number;
  /** Inclusive upper bound in Unix ms; absent: the filter's own (or none). */
  to?: number;
}

export interface RangePlanner {
  /** The next range (older than every range before it), or undefined once the last was given. */
  next(): DateRange | undefined;
  /** A range has been walked to its end with `rows` rows: steers the next range's size. */
  walked(range: DateRange, rows: number): void;
}

export interface FirstPageDates {
  /** Dates (Unix ms) of the rows on the first page of the whole filter. */
  dates: number[];
}

/**
 * `align`, if given, moves each computed lower bound down onto a boundary at or below it (the
 * start of a calendar day, for walks that keep per-day results): every range is then whole
 * days, never less than the one its upper bound falls in.
 */
export function createRangePlanner(
  filter: { from?: number; to?: number },
  first: FirstPageDates,
  rowsPerRange: number,
  align?: (ms: number) => number,
  /** The first (newest) range's rows, where it is to end sooner than the others; default theirs. */
  firstRangeRows = rowsPerRange,
): RangePlanner {
  const floor = filter.from ?? 0;
  const newest = Math.max(...first.dates);
  const oldest = Math.min(...first.dates);
  // Rows per millisecond; the first page's span is at least 1 ms.
  let density = first.dates.length / (newest - oldest + 1);
  /** The next range's upper bound; undefined: the filter's (open top, first range only). */
  let upper = filter.to;
  let lastGiven = false;
  /** Ranges given so far, and the first when it was made short (`firstRangeRows`). */
  let given = 0;
  let shortFirst: DateRange | undefined;
  /** The lower bound of the oldest range that has ended. */
  let deepest = Number.POSITIVE_INFINITY;
  /** Twice that range's width: no range is wider (none before a range has ended). */
  let widest = Number.POSITIVE_INFINITY;
  /** An empty range ended below an open bottom: the next range is the last. */
  let over = false;

  return {
    next() {
      if (lastGiven) return undefined;
      const top = upper ?? newest;
      const short = given === 0 && firstRangeRows < rowsPerRange;
      given += 1;
      const rows = short ? firstRangeRows : rowsPerRange;
      const width = Math.max(1, Math.min(widest, Math.ceil(rows / density)));
      // Rows dated centuries apart make a width past any date: clamped, never a RangeError.
      const lowest = Math.max(top - width + 1, EARLIEST_DATE_MS);
      const from = align ? Math.min(align(lowest), top) : lowest;
      if (over || from <= floor) {
        lastGiven = true;
        return bounded(filter.from, upper);
      }
      const range = bounded(from, upper);
      if (short) shortFirst = range;
      upper = from - 1;
      return range;
    },
    walked(range, rows) {
      // The open top range is measured from its newest known row.
      const top = range.to ?? newest;
      const bottom = range.from ?? floor;
      if (bottom > deepest) return;
      deepest = bottom;
      if (rows === 0 && filter.from === undefined) {
        over = true;
        return;
      }
      const width = Math.max(1, top - bottom + 1);
      // A first range made short on purpose says how dense the rows are, not how wide a range
      // may be: the ranges after it are sized to their own rows.
      if (range !== shortFirst) widest = 2 * width;
      // Empty: fewer than half a range's rows in its width (the next at least twice as wide),
      // and half the density guessed before (wider again after each empty one in a row).
      density = rows === 0 ? Math.min(density / 2, rowsPerRange / (2 * width)) : rows / width;
    },
  };
}

function bounded(from: number | undefined, to: number | undefined): DateRange {
  const range: DateRange = {};
  if (from !== undefined) range.from = from;
  if (to !== undefined) range.to = to;
  return range;
}
