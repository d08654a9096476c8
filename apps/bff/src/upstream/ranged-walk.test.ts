// The one ranged walker (the export, the limit preview and the Overview's day walks): every
// row of the span once, ranges on the boundaries asked for, a few at once, one budget for all
// ranges, and the first failure stopping the rest.
import { getEventListeners } from 'node:events';
import { setImmediate as tick } from 'node:timers/promises';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { WalkPace } from '../platform/pagination/pace';
import { STALE_PAGES } from '../platform/pagination/paginate';
import type { DeferredPage } from './client';
import { walkBudget } from './paginate';
import {
  type DateRange,
  FEWEST_RANGE_PAGES,
  OUTSIDE_PAGES,
  rangePages,
  walkRanges,
} from './ranged-walk';

interface Row {
  id: number;
  at: number;
}

/** A list of rows, newest first, bounded by inclusive dates, paged with offset cursors. */
function service(
  rows: Row[],
  pageSize: number,
  options: {
    endless?: boolean;
    ignoresDates?: (ask: DateRange) => boolean;
    /** Rows added to the answer to the `n`th ask, from 1 (whatever their dates). */
    extra?: (n: number) => Row[];
  } = {},
) {
  const ordered = [...rows].sort((a, b) => b.at - a.at || b.id - a.id);
  const asked: DateRange[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const page = async (ask: DateRange, cursor?: string): Promise<DeferredPage<Row>> => {
    const n = asked.push(ask);
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    try {
      for (let i = asked.length % 3; i >= 0; i--) await tick();
      // `ignoresDates`: a service that answers this ask as if no dates were given.
      const matching = options.ignoresDates?.(ask)
        ? ordered
        : ordered.filter(
            (r) =>
              (ask.from === undefined || r.at >= ask.from) &&
              (ask.to === undefined || r.at <= ask.to),
          );
      const offset = Number(cursor ?? 0);
      const items = [...matching.slice(offset, offset + pageSize), ...(options.extra?.(n) ?? [])];
      const more = options.endless || offset + pageSize < matching.length;
      return {
        metadata: more ? { nextCursor: String(offset + pageSize) } : {},
        items: () => items,
      };
    } finally {
      inFlight -= 1;
    }
  };
  return { page, asked, ordered, maxInFlight: () => maxInFlight };
}

const roomy = { what: 'rows', maxPages: 100_000, timeMs: 60_000 };

describe('walkRanges', () => {
  it('reads every row of the span once, in ranges on the boundaries it is given', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            fc.integer({ min: 0, max: 20_000 }), // spread out
            fc.integer({ min: 4_990, max: 5_010 }), // bunched on a few milliseconds
          ),
          { maxLength: 400, size: 'max' },
        ),
        fc.integer({ min: 1, max: 9 }),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 3 }),
        fc.option(fc.constantFrom(1, 250, 1_000), { nil: undefined }),
        async (dates, pageSize, pagesPerRange, atOnce, unit) => {
          const rows = dates.map((at, id) => ({ id, at }));
          const fake = service(rows, pageSize);
          const span = { from: 0, to: 20_999 };
          const align = unit === undefined ? undefined : (ms: number) => ms - (ms % unit);
          const seen: number[] = [];
          const ranges: DateRange[] = [];
          await walkRanges({
            span,
            page: fake.page,
            dateOf: (r) => r.at,
            atOnce,
            pagesPerRange,
            ...(align ? { align } : {}),
            budget: walkBudget(roomy),
            range(range) {
              ranges.push(range);
              let rows = 0;
              return {
                take: (got) => {
                  for (const r of got()) {
                    expect(r.at).toBeGreaterThanOrEqual(range.from ?? span.from);
                    expect(r.at).toBeLessThanOrEqual(range.to ?? span.to);
                    seen.push(r.id);
                  }
                  rows += got().length;
                },
                done: (n) => expect(n).toBe(rows),
              };
            },
          });
          expect([...seen].sort((a, b) => a - b)).toEqual(rows.map((r) => r.id));
          expect(fake.maxInFlight()).toBeLessThanOrEqual(atOnce);
          // Newest first, touching, each on a boundary but the span's own ends.
          for (const [i, r] of ranges.entries()) {
            const next = ranges[i + 1];
            if (next) expect(next.to).toBe((r.from as number) - 1);
            if (unit && r.from !== span.from) expect((r.from as number) % unit).toBe(0);
          }
        },
      ),
      { numRuns: 120 },
    );
  });

  describe('a service that misbehaves', () => {
    const rows = Array.from({ length: 400 }, (_, id) => ({ id, at: 400_000 - id * 1_000 }));
    const warnings: unknown[] = [];
    const log = { warn: (o: unknown) => void warnings.push(o) };

    it('one that ignores the dates asked for: every range keeps only its own rows, and the walk stops after OUTSIDE_PAGES pages of others', async () => {
      warnings.length = 0;
      const fake = service(rows, 10, { ignoresDates: () => true });
      const span = { from: 100_000, to: 300_000 };
      const taken: Row[] = [];
      const walk = walkRanges({
        span,
        page: fake.page,
        dateOf: (r) => r.at,
        keyOf: (r) => String(r.id),
        atOnce: 2,
        pagesPerRange: 2,
        budget: walkBudget(roomy),
        log,
        range: (range) => ({
          take: (got) => {
            for (const r of got()) {
              expect(r.at).toBeGreaterThanOrEqual(range.from ?? span.from);
              expect(r.at).toBeLessThanOrEqual(range.to ?? span.to);
              taken.push(r);
            }
          },
        }),
      });
      await expect(walk).rejects.toMatchObject({
        status: 502,
        code: 'upstream_invalid_response',
        message: expect.stringMatching(
          /^The card service sent \d+ transactions dated outside the dates asked for, so Card Console stopped reading: it is not filtering by date\.$/,
        ),
      });
      // Stopped early: nowhere near the pages that reading every row in every range would take.
      expect(fake.asked.length).toBeLessThan(OUTSIDE_PAGES + 4);
      expect(taken.length).toBeLessThan(rows.length);
      expect(warnings).toEqual([
        expect.objectContaining({ dropped: expect.any(Number), pages: OUTSIDE_PAGES }),
      ]);
    });

    it('one that strays on fewer pages than that: the walk ends whole, the stray rows dropped and counted in the log', async () => {
      warnings.length = 0;
      // The second page asked for carries three rows from long before the span.
      const strays = [0, 1, 2].map((i) => ({ id: 1_000 + i, at: 10_000 + i }));
      const fake = service(rows, 10, { extra: (n) => (n === 2 ? strays : []) });
      const span = { from: 100_000, to: 300_000 };
      const seen = new Set<number>();
      await walkRanges({
        span,
        page: fake.page,
        dateOf: (r) => r.at,
        keyOf: (r) => String(r.id),
        atOnce: 2,
        pagesPerRange: 2,
        budget: walkBudget(roomy),
        log,
        range: () => ({
          take: (got) => {
            for (const r of got()) seen.add(r.id);
          },
        }),
      });
      const inSpan = rows.filter((r) => r.at >= span.from && r.at <= span.to).map((r) => r.id);
      expect([...seen].sort((a, b) => a - b)).toEqual(inSpan);
      expect(warnings).toEqual([expect.objectContaining({ dropped: 3, pages: 1 })]);
    });

    it('one that names fresh cursors to empty pages for ever: the walk stops after STALE_PAGES of them', async () => {
      const fake = service(rows.slice(0, 30), 10, { endless: true });
      const walk = walkRanges({
        span: {},
        page: fake.page,
        dateOf: (r) => r.at,
        keyOf: (r) => String(r.id),
        atOnce: 1,
        pagesPerRange: 1_000,
        budget: walkBudget({
          what: 'transactions for the index',
          maxPages: 100_000,
          timeMs: 60_000,
        }),
        range: () => ({ take: (got) => void got() }),
      });
      await expect(walk).rejects.toMatchObject({
        code: 'upstream_invalid_response',
        message: expect.stringContaining(`sent ${STALE_PAGES} pages in a row with nothing new`),
      });
      expect(fake.asked.length).toBeLessThan(3 + STALE_PAGES + 2);
    });
  });

  it('walks several ranges at once on a long span, one budget counting every page', async () => {
    const rows = Array.from({ length: 3_000 }, (_, id) => ({ id, at: 3_000_000 - id * 1_000 }));
    const fake = service(rows, 10);
    const budget = walkBudget(roomy);
    let count = 0;
    await walkRanges({
      span: {},
      page: fake.page,
      dateOf: (r) => r.at,
      atOnce: 3,
      pagesPerRange: 8,
      budget,
      range: () => ({
        take: (got) => {
          count += got().length;
        },
      }),
    });
    expect(count).toBe(3_000);
    expect(fake.maxInFlight()).toBe(3);
    expect(budget.pages()).toBe(fake.asked.length);
  });

  it('a span that never ends stops at the page cap of the whole walk, with a clear error', async () => {
    const rows = Array.from({ length: 50 }, (_, id) => ({ id, at: 1_000_000 - id }));
    const fake = service(rows, 10, { endless: true });
    const budget = walkBudget({ what: 'transactions', maxPages: 200, timeMs: 60_000 });
    const walk = walkRanges({
      span: { from: 0, to: 1_000_000 },
      page: fake.page,
      dateOf: (r) => r.at,
      atOnce: 2,
      pagesPerRange: 4,
      budget,
      range: () => ({ take: (got) => void got() }),
    });
    await expect(walk).rejects.toMatchObject({
      status: 502,
      code: 'upstream_bad_gateway',
      message: expect.stringContaining('past 200 pages'),
    });
    expect(fake.asked.length).toBeLessThanOrEqual(200);
  });

  it('the first failure stops every range and rejects at once; a stopped range is never done', async () => {
    const rows = Array.from({ length: 2_000 }, (_, id) => ({ id, at: 2_000_000 - id * 500 }));
    const fake = service(rows, 10);
    let asks = 0;
    const failing = (ask: DateRange, cursor?: string) => {
      asks += 1;
      if (asks === 30) return Promise.reject(new Error('the service fell over'));
      return fake.page(ask, cursor);
    };
    const done: DateRange[] = [];
    const walk = walkRanges({
      span: {},
      page: failing,
      dateOf: (r) => r.at,
      atOnce: 3,
      pagesPerRange: 4,
      budget: walkBudget(roomy),
      range: (range) => ({ take: (got) => void got(), done: () => void done.push(range) }),
    });
    await expect(walk).rejects.toThrow('the service fell over');
    const atFailure = fake.asked.length;
    for (let i = 0; i < 20; i++) await tick();
    // What was in flight may finish; nothing more is asked for, and no range ends after it.
    expect(fake.asked.length).toBeLessThanOrEqual(atFailure);
    const doneAtFailure = done.length;
    for (let i = 0; i < 20; i++) await tick();
    expect(done).toHaveLength(doneAtFailure);
  });

  it("the caller's abort stops it with the abort's reason", async () => {
    const rows = Array.from({ length: 2_000 }, (_, id) => ({ id, at: 2_000_000 - id * 500 }));
    const fake = service(rows, 10);
    const stop = new AbortController();
    let pages = 0;
    const walk = walkRanges({
      span: {},
      page: fake.page,
      dateOf: (r) => r.at,
      atOnce: 2,
      pagesPerRange: 4,
      budget: walkBudget(roomy),
      signal: stop.signal,
      range: () => ({
        take: (got) => {
          got();
          pages += 1;
          if (pages === 5) stop.abort(new Error('gone'));
        },
      }),
    });
    await expect(walk).rejects.toThrow('gone');
    expect(fake.asked.length).toBeLessThan(20);
  });

  it("twelve walks at once on one caller's signal hold one listener on it, and its abort stops every one", async () => {
    const rows = Array.from({ length: 2_000 }, (_, id) => ({ id, at: 2_000_000 - id * 500 }));
    const stop = new AbortController();
    let listening = 0;
    let started = 0;
    const walks = Array.from({ length: 12 }, () =>
      walkRanges({
        span: {},
        page: service(rows, 10).page,
        dateOf: (r) => r.at,
        atOnce: 2,
        pagesPerRange: 4,
        budget: walkBudget(roomy),
        signal: stop.signal,
        range: () => ({
          take: (got) => {
            got();
            started += 1;
            // Twelve pages in, all twelve walks running (each listens from its start).
            if (started === 12) {
              listening = getEventListeners(stop.signal, 'abort').length;
              stop.abort(new Error('shutting down'));
            }
          },
        }),
      }),
    );
    for (const walk of walks) await expect(walk).rejects.toThrow('shutting down');
    expect(listening).toBe(1);
  });

  describe('a paced walk', () => {
    /** A pace that lets every page and range through at once. */
    const open: WalkPace = {
      turn: async () => ({ answered: () => {}, failed: () => {} }),
      range: async () => () => {},
      limit: () => 32,
    };
    // 3,000 rows a second apart over the span: 300 pages of 10; the first page spans 10 s.
    const rows = Array.from({ length: 3_000 }, (_, id) => ({ id, at: 3_000_000 - id * 1_000 }));
    const span = { from: 1_000, to: 3_000_000 };

    it('sizes its ranges from the span, shared over the ranges at once, within the fewest and most pages', () => {
      // The first page spans 9,001 ms: the span below holds 320 such pages.
      const firstPage = rows.slice(0, 10).map((r) => r.at);
      const wide = { from: 3_000_000 - 320 * 9_001 + 1, to: 3_000_000 };
      expect(rangePages(wide, firstPage, 32, 16)).toBe(10);
      expect(rangePages(wide, firstPage, 32, 8)).toBe(8);
      expect(rangePages(wide, firstPage, 100, 16)).toBe(4);
      // One page a range: raised to the fewest, the walk's own or the default.
      expect(rangePages(wide, firstPage, 320, 16)).toBe(FEWEST_RANGE_PAGES);
      expect(rangePages(wide, firstPage, 320, 16, 6)).toBe(6);
      // A span open at an end: the most.
      expect(rangePages({ to: wide.to }, firstPage, 32, 16)).toBe(16);
    });

    /** A paced walk of every row with `options`: each row read once, its ranges and pages. */
    const pacedWalk = async (
      options: Pick<
        Parameters<typeof walkRanges<Row>>[0],
        'atOnce' | 'fewestPagesPerRange' | 'firstRangePages'
      >,
    ) => {
      const fake = service(rows, 10);
      const ranges: DateRange[] = [];
      const ids = new Set<number>();
      await walkRanges({
        span,
        page: fake.page,
        dateOf: (r) => r.at,
        keyOf: (r) => String(r.id),
        pagesPerRange: 16,
        ...options,
        pace: open,
        budget: walkBudget(roomy),
        range: (range) => {
          ranges.push(range);
          return {
            take: (got) => {
              for (const r of got()) ids.add(r.id);
            },
          };
        },
      });
      expect(ids.size).toBe(rows.length);
      return { ranges, pages: fake.asked.length };
    };

    it('a walk that asks for fewer, longer ranges (the index sync) cuts fewer ranges and asks fewer pages, every row read once', async () => {
      const asked = await pacedWalk({ atOnce: 200 });
      const background = await pacedWalk({ atOnce: 200, fewestPagesPerRange: 6 });
      expect(background.ranges.length).toBeLessThan(asked.ranges.length);
      expect(background.pages).toBeLessThan(asked.pages);
    });

    it('a walk that asks for a short first range (the index sync) has its newest range end after its first page or two, every row read once', async () => {
      const newestRows = async (firstRangePages?: number) => {
        const { ranges } = await pacedWalk({
          atOnce: 32,
          fewestPagesPerRange: 6,
          ...(firstRangePages === undefined ? {} : { firstRangePages }),
        });
        const newest = ranges[0] as DateRange;
        return rows.filter((r) => r.at >= (newest.from as number)).length;
      };
      // The newest range's rows: 6 pages and more of 10 rows by default, about one page asked.
      expect(await newestRows()).toBeGreaterThanOrEqual(60);
      expect(await newestRows(1)).toBeLessThanOrEqual(20);
    });
  });
});
