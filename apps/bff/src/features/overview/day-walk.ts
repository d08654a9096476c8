import type { UpstreamTransaction } from '@card-console/shared/upstream/transaction';
import type { Logger } from 'pino';
import type { DayAggregate } from '../../platform/day-aggregates/day-aggregate-store';
import type { CallContext, UpstreamClient } from '../../upstream/client';
import type { WalkBudget } from '../../upstream/paginate';
import { PACED_RANGES_AT_ONCE, transactionPages, walkRanges } from '../../upstream/ranged-walk';
import { addTransaction, emptyDay } from './day-aggregate';
import { addDays, dayStart, localDay } from './local-days';

/**
 * Date ranges walked at once per computation without a pace (test doubles); with the card
 * service's pace, as many as its range slots let open (`upstream/ranged-walk.ts`).
 */
export const DAY_WALKS = 2;
/** Runs of days (each sub account's, at least) walked at once when the card service's pace is there. */
export const PACED_DAY_RUNS = 8;
/** A range is sized to about this many pages, from the density seen so far. */
const PAGES_PER_RANGE = 16;

export interface DayWalkHooks {
  /** Rows read and counted so far grew by `n`. */
  rows(n: number): void;
  /** About how many rows the whole walk reads (once the first page is known). */
  estimate(n: number): void;
  /** These days are complete: every row of them has been counted. */
  done(days: DayAggregate[]): Promise<void>;
}

/**
 * Walks one sub account's transactions over consecutive calendar days (in `timeZone`) and
 * counts every row into its day: a ranged walk (`upstream/ranged-walk.ts`) whose ranges are
 * whole days (each range's lower bound moved down to the start of its day), `DAY_WALKS` at
 * once, each about `PAGES_PER_RANGE` pages, inclusive millisecond bounds that touch without
 * overlapping, so every row is counted once. Ranges of whole days let each range's days be
 * stored as soon as it ends: a walk that fails later keeps them. Every page counts against
 * `budget`, the computation's (`WALK_LIMITS.overview`); aborting `signal` stops the walk.
 */
export async function walkDays(
  upstream: UpstreamClient,
  ctx: CallContext,
  subAccountId: string,
  timeZone: string,
  days: readonly string[],
  hooks: DayWalkHooks,
  walk: { budget: WalkBudget; signal?: AbortSignal; log?: Pick<Logger, 'warn'> },
): Promise<void> {
  const first = days[0];
  const last = days[days.length - 1];
  if (first === undefined || last === undefined) return;
  const span = { from: dayStart(first, timeZone), to: dayStart(addDays(last, 1), timeZone) - 1 };

  const pace = upstream.pace?.walk('asked');
  await walkRanges({
    span,
    page: transactionPages(upstream, ctx, { subAccountId }, span),
    dateOf: (t) => Date.parse(t.date),
    keyOf: (t) => t.id,
    ...(walk.log ? { log: walk.log } : {}),
    atOnce: pace ? PACED_RANGES_AT_ONCE : DAY_WALKS,
    pagesPerRange: PAGES_PER_RANGE,
    ...(pace ? { pace } : {}),
    align: (ms) => dayStart(localDay(ms, timeZone), timeZone),
    budget: walk.budget,
    ...(walk.signal ? { signal: walk.signal } : {}),
    sized(items, more) {
      if (!more) hooks.estimate(items.length);
      else if (items.length > 0) {
        const dates = items.map((t) => Date.parse(t.date));
        const rowsPerMs = dates.length / (Math.max(...dates) - Math.min(...dates) + 1);
        hooks.estimate(Math.round(rowsPerMs * (span.to - span.from + 1)));
      }
    },
    range(range) {
      const from = range.from ?? span.from;
      const to = range.to ?? span.to;
      const counter = dayCounter(
        days.filter((d) => {
          const start = dayStart(d, timeZone);
          return start >= from && start <= to;
        }),
        timeZone,
        to,
      );
      return {
        take(rows) {
          const checked = rows();
          counter.add(checked);
          hooks.rows(checked.length);
        },
        done: () => hooks.done(counter.days),
      };
    },
  });
}

/**
 * Counts rows into their days. Rows after `upTo` (the extra millisecond a range below another
 * asks for, which belongs to the range above) and rows outside the days are left out.
 */
function dayCounter(days: readonly string[], timeZone: string, upTo: number) {
  const out = days.map(emptyDay);
  const starts = days.map((d) => dayStart(d, timeZone));
  const floor = starts[0] ?? 0;
  return {
    days: out,
    add(items: readonly UpstreamTransaction[]) {
      for (const t of items) {
        const at = Date.parse(t.date);
        if (at > upTo || at < floor) continue;
        // The last day starting at or before the row.
        let lo = 0;
        let hi = starts.length - 1;
        while (lo < hi) {
          const mid = (lo + hi + 1) >> 1;
          if ((starts[mid] ?? 0) <= at) lo = mid;
          else hi = mid - 1;
        }
        const day = out[lo];
        if (day) addTransaction(day, t);
      }
    },
  };
}
