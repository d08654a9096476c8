// Fills the transaction index from the card service: a sub account's UTC days are walked as
// date ranges, a few at once (`upstream/ranged-walk.ts`, as the Overview and the export walk),
// and each range's days replace the index's rows of those days as soon as the range ends, so
// a walk that fails later keeps what it finished. The pages of ranges still open are kept
// (with the cursor after each) as they come, so a sync stopped mid-walk (a restart, a crash, a
// replica taking over) goes on with each open range from its last kept page. Which days: on
// the first sync every day of the history window; afterwards only the days that can still
// change (the settling window and days with pending rows), as the Overview decides when a day
// is final, and at most once an hour the days of rows returned, reversed or disputed since
// (the late-change sweep, `lateChangeDays`: the same row takes a new status long after its day
// is final) and the days holding a dispute. One job per sub account, a background job the replicas share
// (index-search-service.ts): requests that ask meanwhile join the running sync, on whichever
// replica runs it.
import type { UpstreamTransaction } from '@card-console/shared/upstream/transaction';
import pLimit from 'p-limit';
import type { Logger } from 'pino';
import { AppError } from '../../core/app-error';
import type { Clock } from '../../core/clock';
import type { JobContext, JobRunner } from '../../platform/jobs/job-runner';
import type { Metrics } from '../../platform/metrics/metrics';
import type { CallContext, UpstreamClient } from '../../upstream/client';
import { walkBudget } from '../../upstream/paginate';
import {
  continueRange,
  PACED_RANGES_AT_ONCE,
  type RangeSink,
  spanPages,
  transactionPages,
  walkRanges,
} from '../../upstream/ranged-walk';
import { WALK_LIMITS } from '../../upstream/walk-limits';
import type {
  IndexedTransaction,
  OpenSyncRange,
  SyncRangePage,
  TransactionIndexStore,
} from './index-store';

const DAY_MS = 86_400_000;
/**
 * Days of history the first sync reads: two years and two days, so the Overview of any period
 * up to a year is read here beside the year before it (in any zone), as are this and last
 * year's quarters and a year to date on the Transactions screen.
 */
export const INDEX_HISTORY_DAYS = 732;
/** A day is final once it ended this many days ago with no pending row (the Overview's rule). */
export const INDEX_SETTLING_DAYS = 3;
/**
 * The statuses a posted row can take after its day is final: a reversed, returned or disputed
 * payment is the same row with a new status (docs/money.md), and the contract shows no
 * transitions, so a settled payment the service later calls failed or canceled (never moved) is
 * one too. A final day is read again only when the late-change sweep finds one of its rows listed
 * under one of these.
 */
export const LATE_STATUSES = ['returned', 'reversed', 'dispute', 'failed', 'canceled'] as const;
/**
 * How far back the late-change sweep lists those statuses, in UTC days (today included). A card
 * holder may dispute a charge up to about 120 days after it (the card networks' usual limit),
 * and an ACH debit may be returned up to 60 days after it (an unauthorised consumer debit): a
 * change to an older row is not seen. Each sweep reads these days once per status, one page
 * apiece where they hold few such rows.
 */
export const LATE_CHANGE_DAYS = 120;
/**
 * Days holding a disputed row are read again by each sweep while they are this recent: a dispute
 * raised up to `LATE_CHANGE_DAYS` after the charge can take about as long again to resolve, and
 * one resolved back to settled (or to a refund) is listed under no status the sweep asks for.
 */
export const DISPUTE_OPEN_DAYS = 2 * LATE_CHANGE_DAYS;
/**
 * A sub account's late-change sweep runs at most once in this long, on each replica (what ran
 * when is kept in memory, `lateChangeSweeps`): a late change reaches the index within about
 * this long, at 3 list walks (and a walk of each open dispute's day) per sub account per hour.
 */
export const LATE_CHANGE_SWEEP_MS = 3_600_000;
/**
 * Date ranges walked at once per sub account. The card service pages with cursors, so a range
 * is one page after another: the sync's serial depth is about a sub account's pages ÷ this.
 * Paced by the card service (the client's pace, `platform/pagination/pace.ts`), as many as the
 * pace's range slots let open: it grows while the service answers well and backs off at its
 * rate limit, so a near service is not flooded nor a far one walked two pages at a time (a
 * fixed eight ran into a near service's rate limit at once, and a fixed two took 102 round
 * trips for the demo's 422 pages behind a far one). Without a pace (test doubles): two.
 */
const RANGES_AT_ONCE = 2;
/** A range is sized to about this many pages at most, from the density seen so far. */
const PAGES_PER_RANGE = 16;
/**
 * A paced range is sized to this many pages at least. No one waits for a sync's last range as
 * for the Overview's, so its ranges are longer than an asked walk's (`FEWEST_RANGE_PAGES`, 2):
 * fewer ranges end part-full, and fewer fall below a sub account's oldest row. With 6 instead of
 * 2, the demo's first sync asked 451–458 pages instead of 464–479, and a restart half-way asked
 * 4–28 pages more than its floor (a full walk's pages less those answered before the kill)
 * instead of 25–64 (`pnpm bench remote-card-service`, 2026-12-03; decision 0122).
 */
const SYNC_FEWEST_RANGE_PAGES = 6;
/**
 * A paced sync's newest range is sized to this many pages (whole days, so a page or two): its
 * rows are in the index, and on the Transactions screen, after that many round trips rather than
 * a whole range's. Against a card service 600 ms away each way, the first rows came 10.4 s after
 * sign-in with the newest range of 6 pages and more (the slow card service's browser flow).
 */
const SYNC_FIRST_RANGE_PAGES = 1;
/**
 * Runs of days (the open days after a first sync, or what a stopped sync left) walked at once;
 * paced, each run's ranges take their slots from the pace like every other.
 */
const RUNS_AT_ONCE = 2;
const PACED_RUNS_AT_ONCE = 32;

/**
 * A stopped sync's kept pages are gone on from this long after the latest was kept; older, its
 * ranges are walked afresh (a cursor a day old may no longer be honoured, and the rows of days
 * still settling have moved on).
 */
export const RANGE_PAGES_KEPT_MS = 24 * 3_600_000;

/** The job that syncs a sub account (one at a time, across replicas). */
export const indexJobKey = (subAccountId: string) => `transaction-index:${subAccountId}`;

export const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const utcDayStart = (day: string) => Date.parse(`${day}T00:00:00.000Z`);
const addDays = (day: string, n: number) => utcDay(utcDayStart(day) + n * DAY_MS);

/** A card-service transaction as the index keeps it (its strings already masked by the client). */
export function toIndexed(t: UpstreamTransaction): Omit<IndexedTransaction, 'subAccountId'> {
  const row: Omit<IndexedTransaction, 'subAccountId'> = {
    id: t.id,
    at: new Date(Date.parse(t.date)).toISOString(),
    description: t.description,
    referenceNumber: t.referenceNumber,
    amountCents: t.amountCents,
    status: t.status,
  };
  if (t.merchantData) {
    row.merchant = t.merchantData.description;
    row.categoryCode = t.merchantData.categoryCode;
  }
  if (t.declineReason !== undefined) row.declineReason = t.declineReason;
  if (t.cardId !== undefined) row.cardId = t.cardId;
  if (t.authorizedAt !== undefined)
    row.authorizedAt = new Date(Date.parse(t.authorizedAt)).toISOString();
  if (t.originalCurrency !== undefined) row.originalCurrency = t.originalCurrency;
  return row;
}

/**
 * The days a sync of one sub account walks at `now`: every day of the history window not yet
 * walked, and of those walked, each that can still change (within the settling window, or
 * holding a pending row) and was walked before `freshSince`. Oldest first, so runs of
 * consecutive days make whole ranges.
 */
export function daysToWalk(
  now: number,
  walked: ReadonlyMap<string, number>,
  pendingDays: ReadonlySet<string>,
  freshSince = Number.POSITIVE_INFINITY,
): string[] {
  const today = utcDay(now);
  const settled = addDays(today, -INDEX_SETTLING_DAYS);
  const out: string[] = [];
  for (let day = addDays(today, 1 - INDEX_HISTORY_DAYS); day <= today; day = addDays(day, 1)) {
    const at = walked.get(day);
    const open = day >= settled || pendingDays.has(day);
    if (at === undefined || (open && at < freshSince)) out.push(day);
  }
  return out;
}

/** Consecutive days as runs: each run is one ranged walk. */
export function runsOf(days: readonly string[]): string[][] {
  const runs: string[][] = [];
  for (const day of days) {
    const run = runs.at(-1);
    if (run && addDays(run.at(-1) as string, 1) === day) run.push(day);
    else runs.push([day]);
  }
  return runs;
}

export interface IndexSyncProgress {
  days: number;
  daysDone: number;
  rows: number;
  /** When the sync began walking (Unix ms; absent from a job that reported none yet). */
  startedAt?: number;
  /** Pages read so far. */
  pages?: number;
  /**
   * About how many pages its days hold, from the density of each run's first page, summed as
   * its runs read them (absent until one has).
   */
  pagesExpected?: number;
}

/**
 * Several running syncs' progress as one (they walk side by side, sharing the card service's
 * pace): their days, days read, rows and pages summed, from when the first began; the pages
 * expected once every one has sized its runs; no start while any has not said when it began.
 */
export function combinedProgress(running: readonly IndexSyncProgress[]): IndexSyncProgress {
  const sum = (of: (p: IndexSyncProgress) => number) => running.reduce((n, p) => n + of(p), 0);
  const starts = running.map((p) => p.startedAt);
  const expected = running.map((p) => p.pagesExpected);
  return {
    days: sum((p) => p.days),
    daysDone: sum((p) => p.daysDone),
    rows: sum((p) => p.rows),
    pages: sum((p) => p.pages ?? 0),
    ...(running.length > 0 && starts.every((at) => at !== undefined)
      ? { startedAt: Math.min(...(starts as number[])) }
      : {}),
    ...(running.length > 0 && expected.every((n) => n !== undefined)
      ? { pagesExpected: sum((p) => p.pagesExpected ?? 0) }
      : {}),
  };
}

/**
 * When a running sync should end (Unix ms): its pages left at the pace of its pages so far,
 * while it expects more than it has read; else its days left at the pace of its days so far;
 * none before it has read a page or a day. Pages come at a steady pace, days in lumps (a range's
 * days come in when it ends, most near the sync's end), so pages say it better; both firm up as
 * the sync goes (the pace starts slow and grows, so early estimates err long).
 */
export function syncDoneAt(progress: IndexSyncProgress, now: number): number | undefined {
  if (progress.startedAt === undefined) return undefined;
  const elapsed = Math.max(0, now - progress.startedAt);
  const pages = progress.pages ?? 0;
  if (progress.pagesExpected !== undefined && pages > 0 && progress.pagesExpected > pages) {
    return Math.round(now + (progress.pagesExpected - pages) * (elapsed / pages));
  }
  if (progress.daysDone <= 0) return undefined;
  const left = Math.max(0, progress.days - progress.daysDone);
  return Math.round(now + left * (elapsed / progress.daysDone));
}

/**
 * Told of each walked range's rows once they are in the index (the alerts evaluate them). Its
 * failure is logged and never fails the sync: the rows are written either way.
 */
export type IndexRowsWritten = (written: {
  subAccountId: string;
  /** The walk's call context: what a hook asks of the card service is counted with the walk. */
  ctx: CallContext;
  rows: readonly Omit<IndexedTransaction, 'subAccountId'>[];
  store: TransactionIndexStore;
}) => Promise<void>;

export interface IndexSyncDeps {
  upstream: UpstreamClient;
  store: TransactionIndexStore;
  jobs: JobRunner;
  clock: Clock;
  logger: Pick<Logger, 'info' | 'warn'>;
  rowsWritten?: IndexRowsWritten | undefined;
  /** Each sync's outcome and time, each page read; none in tests that do not look. */
  metrics?: Pick<Metrics, 'indexSyncEnded' | 'indexSyncPage'> | undefined;
  /** Told when a sync of the sub account walked every due day (the lag it owed ends). */
  synced?: ((subAccountId: string) => void) | undefined;
  /**
   * When each sub account's late-change sweep last ran (`lateChangeSweeps`); without it (test
   * doubles of one sync) a sync sweeps nothing.
   */
  lateChanges?: LateChangeSweeps | undefined;
}

/** When each sub account's late-change sweep last ran here, and the days a sweep owes. */
export interface LateChangeSweeps {
  /** Whether a sweep of the sub account is due at `now`; a due one counts as run at `now`. */
  take(subAccountId: string, now: number): boolean;
  /** Days a sweep reopened that a failed sync did not get to write: the next sync walks them. */
  owed: Map<string, Set<string>>;
}

/** A replica's sweeps: one a sub account per `everyMs` at most. */
export function lateChangeSweeps(everyMs = LATE_CHANGE_SWEEP_MS): LateChangeSweeps {
  const last = new Map<string, number>();
  return {
    take(subAccountId, now) {
      const at = last.get(subAccountId);
      if (at !== undefined && now - at < everyMs) return false;
      last.set(subAccountId, now);
      return true;
    },
    owed: new Map(),
  };
}

/**
 * The late-change sweep of one sub account: the card service's rows of `LATE_STATUSES` over the
 * last `LATE_CHANGE_DAYS` days, each status a ranged walk at the sync's pace and within its
 * budget. The days it returns are those of a listed row the index holds with another status (or
 * on another day) or not at all, and those holding a disputed row in the index within
 * `DISPUTE_OPEN_DAYS`: walking them again (`walkIndexDays`) replaces their rows and tallies.
 */
export async function lateChangeDays(
  deps: Pick<IndexSyncDeps, 'upstream' | 'store'> & Partial<Pick<IndexSyncDeps, 'logger'>>,
  ctx: CallContext,
  subAccountId: string,
  now: number,
  walk: { budget: ReturnType<typeof walkBudget>; signal?: AbortSignal },
): Promise<{ days: Set<string>; changed: number; disputed: number }> {
  const today = utcDay(now);
  const from = addDays(today, 1 - LATE_CHANGE_DAYS);
  const span = { from: utcDayStart(from), to: utcDayStart(addDays(today, 1)) - 1 };
  const listed: UpstreamTransaction[] = [];
  await Promise.all(
    LATE_STATUSES.map((status) => {
      const pages = subAccountPages(deps, ctx, subAccountId, span, walk.budget, status);
      return walkRanges({
        span,
        ...pages,
        ...syncRanges(pages),
        ...(walk.signal ? { signal: walk.signal } : {}),
        range: () => ({
          take(rows) {
            for (const t of rows()) {
              // A service that ignores the filter would have every row read three times over.
              if (t.status !== status) {
                throw new AppError(
                  502,
                  'upstream_invalid_response',
                  `The card service listed a ${t.status} transaction among those asked for as ${status}, so Card Console stopped reading: it is not filtering by status.`,
                );
              }
              listed.push(t);
            }
          },
        }),
      });
    }),
  );
  const held = await deps.store.heldRows(
    subAccountId,
    listed.map((t) => t.id),
  );
  const days = new Set<string>();
  for (const t of listed) {
    const day = utcDay(Date.parse(t.date));
    const it = held.get(t.id);
    if (it === undefined || it.status !== t.status || it.day !== day) days.add(day);
  }
  const changed = days.size;
  const disputeFrom = addDays(today, 1 - Math.min(DISPUTE_OPEN_DAYS, INDEX_HISTORY_DAYS));
  let disputed = 0;
  for (const day of await deps.store.daysHolding(subAccountId, 'dispute')) {
    if (day < disputeFrom || day > today) continue;
    disputed += 1;
    days.add(day);
  }
  return { days, changed, disputed };
}

/**
 * Walks `days` (consecutive UTC days) of one sub account and replaces each in the index. Every
 * page counts against `budget`; aborting `signal` stops the walk.
 */
export async function walkIndexDays(
  deps: Pick<IndexSyncDeps, 'upstream' | 'store' | 'clock'> &
    Partial<Pick<IndexSyncDeps, 'rowsWritten' | 'logger' | 'metrics'>>,
  ctx: CallContext,
  subAccountId: string,
  days: readonly string[],
  walk: {
    budget: ReturnType<typeof walkBudget>;
    signal?: AbortSignal;
    progress?: IndexSyncProgress;
    /** Where the walk's ranges go (the sync's, shared by its runs); default its own, no pages kept. */
    writes?: SyncWrites;
  },
): Promise<void> {
  const first = days[0];
  const last = days.at(-1);
  if (first === undefined || last === undefined) return;
  const span = { from: utcDayStart(first), to: utcDayStart(addDays(last, 1)) - 1 };
  const writes = walk.writes ?? syncWrites(deps, { ctx, subAccountId, progress: walk.progress });
  const pages = subAccountPages(deps, ctx, subAccountId, span, walk.budget);
  await walkRanges({
    span,
    ...pages,
    ...syncRanges(pages),
    firstRangePages: SYNC_FIRST_RANGE_PAGES,
    sized(items, more) {
      // The run's pages, as its first page's density says (one when it is all there is).
      const expected = more
        ? (spanPages(
            span,
            items.map((t) => Date.parse(t.date)),
          ) ?? 1)
        : 1;
      if (walk.progress) {
        walk.progress.pagesExpected =
          (walk.progress.pagesExpected ?? 0) +
          Math.min(Math.ceil(expected), WALK_LIMITS.index.maxPages);
      }
    },
    ...(walk.signal ? { signal: walk.signal } : {}),
    range(range) {
      const from = range.from ?? span.from;
      const to = range.to ?? span.to;
      return rangeSink(deps, walk.progress, writes, {
        from,
        to,
        days: days.filter((day) => utcDayStart(day) >= from && utcDayStart(day) <= to),
      });
    },
  });
  // A walk with writes of its own ends when they are written (a sync's end when all its are).
  if (!walk.writes) await writes.settled();
}

/**
 * How a sync reads a sub account's transactions within `span`: its pages, each row's date and
 * id, at the card service's background pace, every page counted against `budget`.
 */
function subAccountPages(
  deps: Pick<IndexSyncDeps, 'upstream'> & Partial<Pick<IndexSyncDeps, 'logger'>>,
  ctx: CallContext,
  subAccountId: string,
  span: { from: number; to: number },
  budget: ReturnType<typeof walkBudget>,
  status?: string,
) {
  const pace = deps.upstream.pace?.walk('background');
  return {
    page: transactionPages(
      deps.upstream,
      ctx,
      status === undefined ? { subAccountId } : { subAccountId, status },
      span,
    ),
    dateOf: (t: UpstreamTransaction) => Date.parse(t.date),
    keyOf: (t: UpstreamTransaction) => t.id,
    budget,
    ...(pace ? { pace } : {}),
    ...(deps.logger ? { log: deps.logger } : {}),
  };
}

/**
 * How a sync's ranged walk of `pages` cuts its span: as many ranges at once as the pace's slots
 * let (two without a pace), each sized in pages, on whole UTC days.
 */
const syncRanges = (pages: { pace?: unknown }) => ({
  atOnce: pages.pace ? PACED_RANGES_AT_ONCE : RANGES_AT_ONCE,
  pagesPerRange: PAGES_PER_RANGE,
  fewestPagesPerRange: SYNC_FEWEST_RANGE_PAGES,
  align: (ms: number) => utcDayStart(utcDay(ms)),
});

/** The UTC days a kept range covers, when it covers whole days (as the sync's ranges do). */
function wholeDaysOf(range: Pick<OpenSyncRange, 'from' | 'to'>): string[] | undefined {
  const first = utcDay(range.from);
  const last = utcDay(range.to);
  if (utcDayStart(first) !== range.from || utcDayStart(addDays(last, 1)) - 1 !== range.to) {
    return undefined;
  }
  const days: string[] = [];
  for (let day = first; day <= last; day = addDays(day, 1)) days.push(day);
  return days;
}

/**
 * Goes on with a range a stopped sync read part of, from its last kept page's cursor, and
 * writes its days when it ends (at once, when its last page was among those kept). A card
 * service that does not take the kept cursor (its first page fails) has the range walked
 * afresh, its kept pages forgotten.
 */
async function resumeIndexRange(
  deps: Pick<IndexSyncDeps, 'upstream' | 'store' | 'clock'> &
    Partial<Pick<IndexSyncDeps, 'rowsWritten' | 'logger' | 'metrics'>>,
  ctx: CallContext,
  subAccountId: string,
  range: OpenSyncRange,
  days: readonly string[],
  walk: {
    budget: ReturnType<typeof walkBudget>;
    signal: AbortSignal;
    progress: IndexSyncProgress;
    writes: SyncWrites;
  },
): Promise<void> {
  const sink = rangeSink(deps, walk.progress, walk.writes, { ...range, days }, range);
  if (range.next === undefined) return sink.done?.(range.rows.length);
  const span = { from: range.from, to: range.to };
  try {
    await continueRange(
      { ...subAccountPages(deps, ctx, subAccountId, span, walk.budget), signal: walk.signal },
      { ask: { from: range.from, to: range.askTo }, keep: span },
      range.next,
      sink,
    );
  } catch (error) {
    if (sink.answered() || walk.signal.aborted) throw error;
    deps.logger?.warn(
      { err: error, subAccountId, from: range.from, to: range.to },
      'a stopped index sync’s range could not go on from its cursor; walking it again',
    );
    await deps.store.dropRanges(subAccountId, [range.from]);
    await walkIndexDays(deps, ctx, subAccountId, days, walk);
  }
}

type IndexRow = Omit<IndexedTransaction, 'subAccountId'>;
type WalkedDay = { day: string; rows: IndexRow[] };

/**
 * Where one range's pages go: their rows by day, each page kept with the cursor after it
 * (`writes.keep`, when the sync keeps pages), and the range's days written when it ends. A
 * range a stopped sync read part of goes on from `resumed`: its kept rows and pages.
 */
function rangeSink(
  deps: Partial<Pick<IndexSyncDeps, 'metrics'>>,
  progress: IndexSyncProgress | undefined,
  writes: SyncWrites,
  range: { from: number; to: number; days: readonly string[] },
  resumed?: Pick<OpenSyncRange, 'pages' | 'rows'>,
): RangeSink<UpstreamTransaction> & { answered(): boolean } {
  const { from, to } = range;
  const byDay = new Map<string, IndexRow[]>(range.days.map((day) => [day, []]));
  const add = (row: IndexRow) => byDay.get(utcDay(Date.parse(row.at)))?.push(row);
  for (const row of resumed?.rows ?? []) add(row);
  let pages = resumed?.pages ?? 0;
  let answered = false;
  return {
    answered: () => answered,
    take(rows, page) {
      answered = true;
      deps.metrics?.indexSyncPage();
      if (progress) progress.pages = (progress.pages ?? 0) + 1;
      const taken: IndexRow[] = [];
      for (const t of rows()) {
        const at = Date.parse(t.date);
        if (at > to || at < from || !byDay.has(utcDay(at))) continue;
        const row = toIndexed(t);
        taken.push(row);
        add(row);
      }
      pages += 1;
      if (writes.keep) {
        writes.keep.page({
          from,
          to,
          askTo: page.ask.to ?? to,
          page: pages,
          ...(page.next === undefined ? {} : { next: page.next }),
          rows: taken,
        });
      }
    },
    async done() {
      // No page of the range is kept after its days are written (that write forgets them).
      await writes.keep?.settled(from);
      await writes.write(
        [...byDay].map(([day, rows]) => ({ day, rows })),
        from,
      );
    },
  };
}

/**
 * Where a sync's ranges go: `write` hands a finished range's days to be written (forgetting its
 * kept pages; what comes while a write runs is written together next), and the walk goes on
 * while they wait, up to `WRITES_BEHIND_ROWS`; `settled` once every one handed in is written;
 * `keep` keeps the pages of open ranges.
 */
interface SyncWrites {
  /**
   * Resolves once the walk may go on: at once while fewer than `WRITES_BEHIND_ROWS` rows wait
   * to be written, else once this range's are. Rejects when a write handed in before failed.
   */
  write(days: WalkedDay[], rangeFrom?: number): Promise<void>;
  /** Settles once every write handed in has; rejects with the first that failed. */
  settled(): Promise<void>;
  keep?: PageKeeper;
}

/**
 * The rows a sync's walk may have read and not yet written before a range that ends waits for
 * its own write. Each range's write used to hold its walker (and the range slot it had of the
 * card service's pace) until it was done, so a walk went at most as fast as its writes: on the
 * embedded engine, whose writes run one at a time, the demo's first sync took 28.4 round trips
 * of 160 ms; with 5,000 rows behind 22.5, 22.5 and 23.2 in three runs. With 20,000 it took 20.8,
 * 21.9 and 22.4: within the runs' spread, for four times the rows a kill loses (decision 0127).
 * What waits is in memory, about 400 bytes a row (2 MB at the bound), and is what a killed sync
 * loses beyond the pages it kept.
 */
export const WRITES_BEHIND_ROWS = 5_000;

/**
 * On an embedded engine that runs on the thread that reads the card service's answers
 * (`sharesThread`: the tests' engines; the BFF opens it on a thread of its own, decision 0127),
 * keeping pages takes about this share of the time at most: after a write of kept pages that
 * took t, the next begins t ÷ this after it began. Kept as they came, the demo's first sync
 * took about 3 s more of that thread (14.9 s instead of 11.7 s; with this share 11.9 s, `pnpm
 * bench remote-card-service`); a killed sync loses the pages read since the last write, about
 * 0.2 s of them. On PostgreSQL a write costs the BFF little and the next begins when one ends:
 * with the same rest, the pages a restart asked grew from 52 % to 67 % of a full walk's.
 */
const EMBEDDED_KEEP_SHARE = 0.05;
/**
 * The longest wait after a write of kept pages ends before the next begins, whatever the share
 * says: the pages read meanwhile are what a killed sync loses. In the demo's first sync on the
 * embedded engine writes of kept pages took 5–35 ms on average and up to 133 ms, and the share
 * alone then waited up to 2.5 s: a restart asked 23–69 pages it had been answered before the
 * kill (56–68 % of a full walk's pages); with this wait, 3 (54 %), the first sync's depth the
 * same (51.5 against 51 round trips; decision 0122).
 */
export const KEEP_LONGEST_WAIT_MS = 250;

interface PageKeeper {
  /** Keeps a page of an open range, with what else has come, when its turn comes. */
  page(page: SyncRangePage): void;
  /** Settles once no page of the range `from` is being or will be kept (its days are next). */
  settled(from: number): Promise<void>;
  /** Keeps every page waiting for its turn now (a sync that stops keeps all it read). */
  flush(): Promise<void>;
}

export function pageKeeper(
  save: (pages: SyncRangePage[]) => Promise<void>,
  share: number,
): PageKeeper {
  let waiting: SyncRangePage[] = [];
  let flight: { froms: Set<number>; done: Promise<void> } | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let nextAt = 0;
  const start = () => {
    timer = undefined;
    if (flight || waiting.length === 0) return;
    const batch = waiting;
    waiting = [];
    const began = performance.now();
    const done = save(batch).finally(() => {
      const ended = performance.now();
      nextAt = Math.min(began + (ended - began) / share, ended + KEEP_LONGEST_WAIT_MS);
      flight = undefined;
      schedule();
    });
    flight = { froms: new Set(batch.map((p) => p.from)), done };
  };
  const schedule = () => {
    if (timer || flight || waiting.length === 0) return;
    const wait = nextAt - performance.now();
    if (wait <= 0) return start();
    timer = setTimeout(start, wait);
    timer.unref?.();
  };
  return {
    page(page) {
      waiting.push(page);
      schedule();
    },
    async settled(from) {
      waiting = waiting.filter((p) => p.from !== from);
      if (flight?.froms.has(from)) await flight.done;
    },
    async flush() {
      while (flight || waiting.length > 0) {
        clearTimeout(timer);
        timer = undefined;
        if (flight) await flight.done;
        else start();
      }
    },
  };
}

type WriteDeps = Pick<IndexSyncDeps, 'store' | 'clock'> &
  Partial<Pick<IndexSyncDeps, 'rowsWritten' | 'logger'>>;

function syncWrites(
  deps: WriteDeps,
  sync: {
    ctx: CallContext;
    subAccountId: string;
    progress: IndexSyncProgress | undefined;
    /** Keep each page of an open range (`saveRangePages`); default not. */
    keepPages?: boolean;
    /** Told of the first write that fails (the walks it would go on with are then wasted). */
    failed?: (error: unknown) => void;
  },
): SyncWrites {
  const { subAccountId } = sync;
  const writes = writesBehind(
    groupedWrites(deps, sync.ctx, subAccountId, sync.progress),
    sync.failed,
  );
  if (!sync.keepPages) return writes;
  let warned = false;
  const share = deps.store.sharesThread ? EMBEDDED_KEEP_SHARE : 1;
  const keep = pageKeeper(async (pages) => {
    try {
      await deps.store.saveRangePages(subAccountId, pages, deps.clock.now());
    } catch (error) {
      // Keeping pages only saves a restart work: the sync goes on without them.
      if (!warned) {
        warned = true;
        deps.logger?.warn(
          { err: error, subAccountId },
          'the index sync could not keep the pages it read; a restart walks their ranges again',
        );
      }
    }
  }, share);
  return { ...writes, keep };
}

/**
 * `write` with the walk going on while writes wait (`WRITES_BEHIND_ROWS`): each hand-in
 * resolves at once while few rows wait, else once its own are written. The first write that
 * fails is told to `failed` (the sync stops its walks) and rejects every hand-in after it.
 */
export function writesBehind(
  write: (days: WalkedDay[], rangeFrom?: number) => Promise<void>,
  failed?: (error: unknown) => void,
): Pick<SyncWrites, 'write' | 'settled'> {
  let waitingRows = 0;
  const pending = new Set<Promise<void>>();
  let failure: { error: unknown } | undefined;
  return {
    async write(days, rangeFrom) {
      if (failure) throw failure.error;
      const rows = days.reduce((n, d) => n + d.rows.length, 0);
      waitingRows += rows;
      const written = write(days, rangeFrom).finally(() => {
        waitingRows -= rows;
      });
      const tracked = written.then(
        () => undefined,
        (error: unknown) => {
          if (failure) return;
          failure = { error };
          failed?.(error);
        },
      );
      pending.add(tracked);
      void tracked.then(() => pending.delete(tracked));
      if (waitingRows > WRITES_BEHIND_ROWS) await written;
    },
    async settled() {
      while (pending.size > 0) await Promise.all(pending);
      if (failure) throw failure.error;
    },
  };
}

/**
 * The most rows one write of a sync takes (one transaction) on the embedded engine, when ranges
 * ended together: a person's statement there waits for the write that is running (`background`
 * in sql-engine.ts), so a write holds the engine for about this many rows' time at most (about
 * 0.15–0.3 ms a row). A range with more is written whole.
 */
export const WRITE_GROUP_ROWS = 1_000;

/**
 * Calls `run` with what was handed in, what comes in while it runs handed in together next, up
 * to `most` by `size` (at least one item); each hand-in's promise settles with the run that took
 * it (rejects with that run's error).
 */
export function grouped<T>(
  run: (items: T[]) => Promise<void>,
  size: (item: T) => number = () => 1,
  most = Number.POSITIVE_INFINITY,
) {
  let waiting: { item: T; settle: (error?: unknown) => void }[] = [];
  let running = false;
  const drain = async () => {
    running = true;
    while (waiting.length > 0) {
      let taken = 0;
      let total = 0;
      while (taken < waiting.length) {
        const next = size((waiting[taken] as { item: T }).item);
        if (taken > 0 && total + next > most) break;
        total += next;
        taken++;
      }
      const group = waiting.slice(0, taken);
      waiting = waiting.slice(taken);
      const error = await run(group.map((g) => g.item)).then(
        () => undefined,
        (e: unknown) => e ?? new Error('the index write failed'),
      );
      for (const g of group) g.settle(error);
    }
    running = false;
  };
  return (item: T) =>
    new Promise<void>((resolve, reject) => {
      waiting.push({ item, settle: (error) => (error ? reject(error) : resolve()) });
      if (!running) void drain();
    });
}

/**
 * Writes each finished range's days into the index and tells `rowsWritten`, the ranges that
 * end while a write is running together in the next one (one transaction, one tally of their
 * days) up to `WRITE_GROUP_ROWS`: a write costs about 8 ms on the embedded engine besides its
 * rows, so many short ranges ending together are not many writes, and a person's statement
 * waits for one write at most. Each range's promise settles with the write that holds its days.
 */
function groupedWrites(
  deps: WriteDeps,
  ctx: CallContext,
  subAccountId: string,
  progress: IndexSyncProgress | undefined,
) {
  const write = async (walked: WalkedDay[], rangesDone: number[]) => {
    await deps.store.replaceDays(subAccountId, walked, deps.clock.now(), { rangesDone });
    // Counted as soon as the index holds them: the list's count, asked meanwhile, includes them,
    // and the alerts' evaluation below may take a while (counted after it, a screen said "this
    // sync has read 12,031 transactions" under a list of 12,771).
    if (progress) {
      progress.daysDone += walked.length;
      progress.rows += walked.reduce((n, d) => n + d.rows.length, 0);
    }
    if (deps.rowsWritten) {
      try {
        await deps.rowsWritten({
          subAccountId,
          ctx,
          rows: walked.flatMap((d) => d.rows),
          store: deps.store,
        });
      } catch (error) {
        deps.logger?.warn(
          { err: error, subAccountId },
          'alerts not evaluated for rows the index sync wrote',
        );
      }
    }
  };
  const writes = grouped<{ days: WalkedDay[]; rangeFrom: number | undefined }>(
    (ranges) =>
      write(
        ranges.flatMap((r) => r.days),
        ranges.flatMap((r) => (r.rangeFrom === undefined ? [] : [r.rangeFrom])),
      ),
    (range) => range.days.reduce((n, d) => n + d.rows.length, 0),
    // PostgreSQL's readers never wait for a write: there, a write takes all that waits.
    deps.store.kind === 'embedded' ? WRITE_GROUP_ROWS : Number.POSITIVE_INFINITY,
  );
  return (days: WalkedDay[], rangeFrom?: number) => writes({ days, rangeFrom });
}

/** A sync's work, its outcome and time reported (`metrics`) and its success told (`synced`). */
function reported(
  deps: Omit<IndexSyncDeps, 'jobs'>,
  subAccountId: string,
  work: (job: JobContext<IndexSyncProgress>) => Promise<void>,
) {
  return async (job: JobContext<IndexSyncProgress>) => {
    const started = performance.now();
    const seconds = () => (performance.now() - started) / 1000;
    try {
      await work(job);
    } catch (error) {
      deps.metrics?.indexSyncEnded('failed', seconds());
      deps.logger.warn({ err: error, subAccountId }, 'transaction index sync failed');
      throw error;
    }
    deps.metrics?.indexSyncEnded('synced', seconds());
    deps.synced?.(subAccountId);
  };
}

/** What the read that asked for a sync gives its job (kept with it, for any replica). */
export interface IndexSyncInput {
  /** The asking read's: the sync's calls to the card service carry it. */
  requestId: string;
  /** Days walked less than this long ago are not walked again. */
  freshForMs: number;
}

export const newSyncProgress = (): IndexSyncProgress => ({ days: 0, daysDone: 0, rows: 0 });

/**
 * The sync of one sub account, as whichever replica runs its job does it. Days walked less than
 * `freshForMs` ago are not walked again: a sync asked again while another ran finds them done.
 */
export function indexSyncWork(deps: Omit<IndexSyncDeps, 'jobs'>) {
  return (subAccountId: string, input: IndexSyncInput, job: JobContext<IndexSyncProgress>) =>
    reported(deps, subAccountId, async ({ progress, signal }) => {
      const now = deps.clock.now();
      const [walked, pending, open] = await Promise.all([
        deps.store.walkedDays(subAccountId),
        deps.store.pendingDays(subAccountId),
        deps.store.openRanges(subAccountId),
      ]);
      const budget = walkBudget(WALK_LIMITS.index, { now: () => deps.clock.now() });
      const ctx: CallContext = { requestId: input.requestId, bulk: true, signal };
      const days = await withLateChanges(
        deps,
        ctx,
        subAccountId,
        now,
        walked,
        daysToWalk(now, walked, pending, now - input.freshForMs),
        { budget, signal },
      );
      // A stopped sync's ranges go on from their kept pages, each within days still due;
      // the rest of what it kept is forgotten, its days walked as any others.
      const due = new Set(days);
      const resumed = open.flatMap((range) => {
        const its = wholeDaysOf(range);
        const usable =
          its !== undefined &&
          now - range.writtenAt < RANGE_PAGES_KEPT_MS &&
          its.every((day) => due.has(day));
        return usable ? [{ range, days: its }] : [];
      });
      const forgotten = open.filter((range) => !resumed.some((r) => r.range === range));
      await deps.store.dropRanges(
        subAccountId,
        forgotten.map((range) => range.from),
      );
      const resumedDays = new Set(resumed.flatMap((r) => r.days));
      progress.days = days.length;
      progress.startedAt = now;
      // The first run that fails stops the others; the job ends once every run has.
      const stop = new AbortController();
      const runSignal = AbortSignal.any([signal, stop.signal]);
      const runCtx = { ...ctx, signal: runSignal };
      const writes = syncWrites(deps, {
        ctx: runCtx,
        subAccountId,
        progress,
        keepPages: true,
        failed: (error) => stop.abort(error),
      });
      const walk = { budget, signal: runSignal, progress, writes };
      const limit = pLimit(deps.upstream.pace ? PACED_RUNS_AT_ONCE : RUNS_AT_ONCE);
      const task = (work: () => Promise<void>) =>
        limit(async () => {
          try {
            await work();
          } catch (error) {
            stop.abort(error);
            throw error;
          }
        });
      const ends = await Promise.allSettled([
        ...resumed.map(({ range, days: its }) =>
          task(() => resumeIndexRange(deps, runCtx, subAccountId, range, its, walk)),
        ),
        ...runsOf(days.filter((day) => !resumedDays.has(day))).map((run) =>
          task(() => walkIndexDays(deps, runCtx, subAccountId, run, walk)),
        ),
      ]);
      // The ranges walked to their end are written (or their write failed) before the sync
      // ends either way: a run that failed leaves the others' finished ranges in the index.
      const written = await writes.settled().then(
        () => undefined,
        (error: unknown) => ({ error }),
      );
      const failed = ends.find((end) => end.status === 'rejected');
      if (failed || written) {
        // What the open ranges read is kept for the sync that follows (a process shut down
        // keeps it all; one killed, what it had kept).
        await writes.keep?.flush();
        throw stop.signal.reason ?? (failed ? failed.reason : written?.error);
      }
      deps.lateChanges?.owed.delete(subAccountId);
      deps.logger.info(
        { subAccountId, days: progress.days, rows: progress.rows },
        'transaction index synced',
      );
    })(job);
}

/**
 * `due`, the days a sync walks, with those the late-change sweep reopens when one is due (an
 * incremental sync's, at most once per `LATE_CHANGE_SWEEP_MS`) and those an earlier sweep owes,
 * oldest first. A sweep that fails is logged and the sync goes on with its own days: the next
 * sweep is an interval on.
 */
async function withLateChanges(
  deps: Omit<IndexSyncDeps, 'jobs'>,
  ctx: CallContext,
  subAccountId: string,
  now: number,
  walked: ReadonlyMap<string, number>,
  due: string[],
  walk: { budget: ReturnType<typeof walkBudget>; signal: AbortSignal },
): Promise<string[]> {
  const sweeps = deps.lateChanges;
  if (!sweeps) return due;
  const owed = sweeps.owed.get(subAccountId) ?? new Set<string>();
  // A first sync reads every row as it is now: the sweeps begin an interval after it.
  if (sweeps.take(subAccountId, now) && walked.size > 0) {
    try {
      const found = await lateChangeDays(deps, ctx, subAccountId, now, walk);
      const already = new Set(due);
      const fresh = [...found.days].filter((day) => !already.has(day));
      for (const day of found.days) owed.add(day);
      deps.logger.info(
        {
          subAccountId,
          reopened: fresh.length,
          changedDays: found.changed,
          disputeDays: found.disputed,
        },
        'late-change sweep: final days read again',
      );
    } catch (error) {
      walk.signal.throwIfAborted();
      deps.logger.warn(
        { err: error, subAccountId },
        'late-change sweep failed; the next is an interval on',
      );
    }
  }
  if (owed.size === 0) return due;
  sweeps.owed.set(subAccountId, owed);
  return [...new Set([...due, ...owed])].sort();
}

/** Syncs sub accounts into the index on an in-process job runner, one job per sub account. */
export function createIndexSync(deps: IndexSyncDeps) {
  const work = indexSyncWork(deps);
  return {
    /** Starts (or joins) the sync of `subAccountId`; its job says how far it got. */
    sync(subAccountId: string, requestId: string, freshForMs = 0) {
      return deps.jobs.start<IndexSyncProgress>(
        indexJobKey(subAccountId),
        (job) => work(subAccountId, { requestId, freshForMs }, job),
        newSyncProgress(),
      );
    },
  };
}
