import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRangePlanner, type DateRange } from './date-ranges';

const inRange = (t: number, r: DateRange) =>
  (r.from === undefined || t >= r.from) && (r.to === undefined || t <= r.to);
const widthOf = (r: DateRange) => (r.to as number) - (r.from as number) + 1;

/**
 * Plans ranges over `data` (row dates) the way the export does: `lag` ranges are handed out
 * before the oldest unreported one is reported walked with its true row count.
 */
function plan(
  data: number[],
  filter: { from?: number; to?: number },
  firstPage: number[],
  rowsPerRange: number,
  lag: number,
): DateRange[] {
  const planner = createRangePlanner(filter, { dates: firstPage }, rowsPerRange);
  const given: DateRange[] = [];
  const open: DateRange[] = [];
  for (let guard = 0; guard < 10_000; guard++) {
    while (open.length <= lag) {
      const range = planner.next();
      if (!range) break;
      given.push(range);
      open.push(range);
    }
    const done = open.shift();
    if (!done) return given;
    planner.walked(done, data.filter((t) => inRange(t, done)).length);
  }
  throw new Error('the planner never gave its last range');
}

const scenario = fc
  .record({
    // Clustered dates, repeats and gaps included.
    data: fc.array(
      fc.oneof(
        fc.integer({ min: 0, max: 2_000 }),
        fc.integer({ min: 1_700_000_000_000, max: 1_700_000_100_000 }),
        fc.constant(1_700_000_050_000),
      ),
      { minLength: 2, maxLength: 300 },
    ),
    from: fc.option(fc.integer({ min: 0, max: 1_700_000_000_000 }), { nil: undefined }),
    span: fc.option(fc.integer({ min: 0, max: 200_000 }), { nil: undefined }),
    pageSize: fc.integer({ min: 1, max: 20 }),
    pagesPerRange: fc.integer({ min: 1, max: 8 }),
    lag: fc.integer({ min: 0, max: 3 }),
  })
  .map((s) => {
    const filter: { from?: number; to?: number } = {};
    if (s.from !== undefined) filter.from = s.from;
    if (s.span !== undefined) filter.to = (s.from ?? 1_700_000_000_000) + s.span;
    const rows = s.data.filter((t) => inRange(t, filter)).sort((a, b) => b - a);
    return { ...s, filter, rows };
  })
  .filter((s) => s.rows.length > s.pageSize);

describe('createRangePlanner', () => {
  it('gives ranges that touch, never overlap, and hold every row of the filter once', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const ranges = plan(
          s.rows,
          s.filter,
          s.rows.slice(0, s.pageSize),
          s.pageSize * s.pagesPerRange,
          s.lag,
        );
        expect(ranges[0]?.to).toBe(s.filter.to);
        expect(ranges.at(-1)?.from).toBe(s.filter.from);
        for (const [i, r] of ranges.entries()) {
          if (r.from !== undefined && r.to !== undefined) expect(r.from).toBeLessThanOrEqual(r.to);
          const next = ranges[i + 1];
          if (next) expect(next.to).toBe((r.from as number) - 1);
        }
        for (const t of s.rows) expect(ranges.filter((r) => inRange(t, r))).toHaveLength(1);
        // Ranges stop soon after the data does, and cross a gap in it soon: each empty range
        // that ends widens the next, so a gap (one here, and the span below the data) costs
        // about one per doubling of its width for each range walked at once, not one per range.
        const empty = ranges.filter((r) => !s.rows.some((t) => inRange(t, r)));
        const reach = (s.filter.to ?? (s.rows[0] as number)) - (s.filter.from ?? 0) + 1;
        const doublings = Math.ceil(Math.log2(reach)) + 2;
        expect(empty.length).toBeLessThanOrEqual(2 * (s.lag + 1) * doublings);
        if (s.lag === 0) {
          // One range at a time: each empty range is at least twice as wide as the one before it,
          // unless it is the last (cut at the floor) or the first.
          for (const [i, r] of ranges.entries()) {
            const before = ranges[i - 1];
            if (!empty.includes(before as DateRange) || i === ranges.length - 1) continue;
            expect(widthOf(r)).toBeGreaterThanOrEqual(2 * widthOf(before as DateRange));
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('sizes ranges from the density it has seen', () => {
    // 10 rows a millisecond from t=1,000,000 down to 0; 20 rows a range.
    const data = Array.from({ length: 10_000 }, (_, i) => 1_000_000 - Math.floor(i / 10));
    const planner = createRangePlanner({}, { dates: data.slice(0, 50) }, 20);
    // 50 rows in 5 ms: 20 rows fit in 2 ms; the first range is open at the top.
    const first = planner.next();
    expect(first).toEqual({ from: 999_999 });
    planner.walked(first as DateRange, 20);
    const second = planner.next() as DateRange;
    expect(second).toEqual({ from: 999_997, to: 999_998 });
    // Sparser than guessed (1 row a ms, 20 ms a range): wider, twice as wide at most.
    planner.walked(second, 2);
    const third = planner.next() as DateRange;
    expect(widthOf(third)).toBe(4);
    planner.walked(third, 4);
    expect(widthOf(planner.next() as DateRange)).toBe(8);
  });

  it('sizes the first (newest) range to its own rows when asked, the ones after it to theirs', () => {
    // 10 rows a millisecond; ranges of 200 rows (20 ms), the newest of 20 (2 ms).
    const data = Array.from({ length: 10_000 }, (_, i) => 1_000_000 - Math.floor(i / 10));
    const planner = createRangePlanner(
      { to: 1_000_000 },
      { dates: data.slice(0, 50) },
      200,
      undefined,
      20,
    );
    const first = planner.next() as DateRange;
    expect(first).toEqual({ from: 999_999, to: 1_000_000 });
    expect(widthOf(planner.next() as DateRange)).toBe(20);
    // The short range walked: its density steers the next, its width does not bound it.
    planner.walked(first, 20);
    expect(widthOf(planner.next() as DateRange)).toBe(20);
  });

  it('a range that held a few rows (the edge of a gap) does not make the next one reach the start', () => {
    const planner = createRangePlanner(
      { from: 0, to: 1_000_000 },
      { dates: [1_000_000, 999_991] },
      100,
    );
    // 2 rows in 10 ms: 100 rows take 500 ms.
    const first = planner.next() as DateRange;
    expect(widthOf(first)).toBe(500);
    // One row in it: alone, it would size the next range to 50,000 ms, a twentieth of the span.
    planner.walked(first, 1);
    expect(widthOf(planner.next() as DateRange)).toBe(1_000);
  });

  it('open at the bottom, makes the range after an empty one the last', () => {
    const planner = createRangePlanner({ to: 5_000 }, { dates: [5_000, 4_990] }, 11);
    const first = planner.next() as DateRange;
    // 2 rows in 11 ms: 11 rows take 61 ms.
    expect(first).toEqual({ from: 4_940, to: 5_000 });
    planner.walked(first, 0);
    expect(planner.next()).toEqual({ to: (first.from as number) - 1 });
    expect(planner.next()).toBeUndefined();
  });

  it('with a floor, makes the range after an empty one twice as wide, and twice again after each empty one in a row, down to the floor', () => {
    const planner = createRangePlanner({ from: 0, to: 5_000 }, { dates: [5_000, 4_990] }, 11);
    const first = planner.next() as DateRange;
    // 2 rows in 11 ms: 11 rows take 61 ms.
    expect(first).toEqual({ from: 4_940, to: 5_000 });
    planner.walked(first, 0);
    const second = planner.next() as DateRange;
    expect(second).toEqual({ from: 4_818, to: 4_939 });
    planner.walked(second, 0);
    const third = planner.next() as DateRange;
    expect(widthOf(third)).toBe(2 * widthOf(second));
    const rest: DateRange[] = [];
    for (let r = planner.next(); r; r = planner.next()) {
      rest.push(r);
      planner.walked(r, 0);
    }
    // The doublings reach the floor in as many ranges as the width doubles to span it.
    expect(rest.length).toBeLessThanOrEqual(Math.ceil(Math.log2(4_818 / widthOf(third))));
    expect(rest.at(-1)?.from).toBe(0);
  });

  it('sizes the next range from the oldest range that has ended, whatever order they end in', () => {
    const planner = createRangePlanner({ from: 0, to: 10_000 }, { dates: [10_000, 9_990] }, 11);
    const newer = planner.next() as DateRange;
    const older = planner.next() as DateRange;
    expect(widthOf(older)).toBe(61);
    planner.walked(older, 0);
    // The newer range ends after it, dense: it says less of what lies below than the older one.
    planner.walked(newer, 20);
    expect(widthOf(planner.next() as DateRange)).toBe(2 * 61);
  });

  it('a quiet spell in a long dense history (a day with no rows) does not end the split: the rows below it are walked in ranges of the size before it', () => {
    // A row every ms from 200,000 down to 0, none in [115,000, 120,999]: three ranges' width.
    const rows = Array.from({ length: 200_001 }, (_, i) => 200_000 - i).filter(
      (t) => t < 115_000 || t > 120_999,
    );
    const ranges = plan(rows, { from: 0, to: 200_000 }, rows.slice(0, 100), 2_000, 0);
    expect(ranges.some((r) => !rows.some((t) => inRange(t, r)))).toBe(true);
    const below = ranges.filter((r) => (r.to as number) < 115_000);
    // About 57 ranges of 2,000 rows below the gap, none of them much more.
    expect(below.length).toBeGreaterThanOrEqual(50);
    for (const r of below) {
      expect(rows.filter((t) => inRange(t, r)).length).toBeLessThanOrEqual(2 * 2_000);
    }
  });

  it('plans any dates a service sends, centuries apart, without leaving what a date can hold', () => {
    // Aligned on whole days by a Date, as the index's and the Overview's walks are.
    const align = (ms: number) =>
      Date.parse(`${new Date(ms).toISOString().slice(0, 10)}T00:00:00Z`);
    const oldest = Date.parse('0001-01-01T00:00:00Z');
    const newest = Date.parse('9999-12-31T23:59:59Z');
    for (const filter of [{}, { to: newest }, { from: oldest, to: newest }]) {
      const planner = createRangePlanner(filter, { dates: [newest, oldest] }, 2_000, align);
      const given: DateRange[] = [];
      for (let range = planner.next(); range; range = planner.next()) {
        given.push(range);
        planner.walked(range, 2);
        expect(given.length).toBeLessThan(1_000);
      }
      expect(given.at(-1)?.from).toBe((filter as { from?: number }).from);
      for (const range of given) {
        for (const bound of [range.from, range.to]) {
          if (bound !== undefined) expect(Number.isNaN(new Date(bound).getTime())).toBe(false);
        }
      }
    }
  });
});
