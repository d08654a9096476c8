import type { UpstreamTransaction } from '@card-console/shared/upstream/transaction';
import pLimit from 'p-limit';
import type { DayAggregate } from '../../platform/insights/day-aggregate-store';
import type { CallContext, DeferredPage, UpstreamClient } from '../../upstream/client';
import { walkPages } from '../../upstream/walk-pages';
import { addTransaction, emptyDay } from './day-aggregate';
import { addDays, dayStart } from './local-days';

/** Date ranges walked at once per computation, as the CSV export does. */
export const DAY_WALKS = 2;
/** A range is sized to about this many pages, from the density the first page shows. */
const PAGES_PER_RANGE = 16;
const DAY_MS = 86_400_000;

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
 * counts every row into its day, the CSV export's way (`transactions/export-service.ts`):
 * the first page of the whole span is read; if it is the only one, that is the walk.
 * Otherwise the span is split into ranges of whole days sized from that page's density,
 * newest first, `DAY_WALKS` of them walked at once, each with its own cursor and inclusive
 * millisecond bounds that touch without overlapping, so every row is counted once. Ranges
 * of whole days let each range's days be stored as soon as it ends: a walk that fails later
 * keeps them.
 */
export async function walkDays(
  upstream: UpstreamClient,
  ctx: CallContext,
  subAccountId: string,
  timeZone: string,
  days: readonly string[],
  hooks: DayWalkHooks,
): Promise<void> {
  const first = days[0];
  const last = days[days.length - 1];
  if (first === undefined || last === undefined) return;
  const lastInstant = dayStart(addDays(last, 1), timeZone) - 1;

  const fetchPage = (from: number, to: number, cut: boolean, cursor?: string) =>
    upstream.listTransactionsDeferred(ctx, {
      subAccountId,
      fromDate: from,
      // A range below another is asked 1 ms more and cut (`countRange`).
      toDate: cut ? to + 1 : to,
      ...(cursor === undefined ? {} : { cursor }),
    });

  const stop = new AbortController();
  const whole = await fetchPage(dayStart(first, timeZone), lastInstant, false);
  const firstItems = whole.items();
  if (whole.metadata.nextCursor === undefined) {
    // One page: that is every row of the span.
    const counter = dayCounter(days, timeZone, lastInstant);
    counter.add(firstItems);
    hooks.rows(firstItems.length);
    hooks.estimate(firstItems.length);
    await hooks.done(counter.days);
    return;
  }
  if (firstItems.length === 0) {
    // An empty page that goes on: nothing to size ranges by, so one range.
    await walkRange(days, false);
    return;
  }

  const dates = firstItems.map((t) => Date.parse(t.date));
  const rowsPerMs = dates.length / (Math.max(...dates) - Math.min(...dates) + 1);
  hooks.estimate(Math.round(rowsPerMs * (lastInstant - dayStart(first, timeZone) + 1)));
  const daysPerRange = Math.max(
    1,
    Math.floor((PAGES_PER_RANGE * firstItems.length) / (rowsPerMs * DAY_MS)),
  );
  const ranges: string[][] = [];
  for (let end = days.length; end > 0; end -= daysPerRange) {
    ranges.push(days.slice(Math.max(0, end - daysPerRange), end));
  }
  // One range that is the whole span: the first page's own walk goes on.
  if (ranges.length === 1) {
    await walkRange(days, false, whole);
    return;
  }
  const limit = pLimit(DAY_WALKS);
  await Promise.all(
    ranges.map((range, i) =>
      limit(async () => {
        if (stop.signal.aborted) return;
        try {
          await walkRange(range, i > 0);
        } catch (error) {
          stop.abort();
          throw error;
        }
      }),
    ),
  );

  /** One range's cursor walk; `cut`: it lies below another range. */
  async function walkRange(
    range: readonly string[],
    cut: boolean,
    start?: DeferredPage<UpstreamTransaction>,
  ): Promise<void> {
    const oldest = range[0];
    const newest = range[range.length - 1];
    if (oldest === undefined || newest === undefined) return;
    const from = dayStart(oldest, timeZone);
    const to = dayStart(addDays(newest, 1), timeZone) - 1;
    const counter = dayCounter(range, timeZone, to);
    const first = start ?? (await fetchPage(from, to, cut));
    const complete = await walkPages(
      first,
      (cursor) => fetchPage(from, to, cut, cursor),
      (checked) => {
        counter.add(checked);
        hooks.rows(checked.length);
      },
      () => stop.signal.aborted,
    );
    if (!complete) return;
    await hooks.done(counter.days);
  }
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
