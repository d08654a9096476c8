import type { Overview, OverviewQuery } from '@card-console/shared/api/insights';
import { isIsoDay } from '@card-console/shared/dates';
import type { UpstreamSubAccount } from '@card-console/shared/upstream/sub-account';
import pLimit from 'p-limit';
import { AppError } from '../../core/app-error';
import type { Who } from '../../platform/sessions/who';
import type { DayAggregate, DayAggregateStore } from '../../platform/insights/day-aggregate-store';
import type { CallContext } from '../../upstream/client';
import { walkBudget } from '../../upstream/paginate';
import { allSubAccounts } from '../../upstream/sub-account-pages';
import { WALK_LIMITS } from '../../upstream/walk-limits';
import type { FeatureDeps } from '../feature-deps';
import { categoryGroupLabel } from './category-groups';
import { emptyDay, isFinal, mergeDay, mergeTotals } from './day-aggregate';
import { DAY_WALKS, walkDays } from './day-walk';
import { addDays, canonicalZone, dayList, daysBetween, localDay, mondayOf } from './local-days';

/** The longest period one Overview covers. */
export const MAX_PERIOD_DAYS = 366;
/** Periods up to this long are drawn day by day; longer ones week by week. */
export const DAILY_UP_TO_DAYS = 92;
/** Rows of the top merchants, cards and decline reasons. */
export const TOP = 10;
/**
 * Asked to refresh, a day is read again only if it was read at least this long ago: however
 * often someone presses Refresh, one period's days are walked at most once in that time.
 */
export const MIN_REFRESH_MS = 5_000;
/** After a failed walk, requests say so for this long before one tries again. */
export const RETRY_AFTER_FAILURE_MS = 5_000;

interface Job {
  done: Promise<void>;
  rowsRead: number;
  /** Per walked span, its estimate. */
  estimates: number[];
  error?: string;
  failedAt?: number;
}

export interface OverviewServiceDeps
  extends Pick<
    FeatureDeps,
    'upstream' | 'clock' | 'logger' | 'cardDirectory' | 'cutOff' | 'walkGate'
  > {
  store: DayAggregateStore;
  /** A day that can still change is read again once it was last read this long ago. */
  refreshMs: number;
}

/**
 * The Overview's aggregates, from per-day aggregates per sub account kept in `store`.
 *
 * A request reads the days of its period and of the period before it. Days never computed,
 * and days not final (`day-aggregate.ts`: today, the settling window, days with pending
 * transactions) last walked `refreshMs` ago or more (`MIN_REFRESH_MS` when the person asks to
 * refresh), are walked again (`day-walk.ts`); the answer's `updatedAt` says when the oldest
 * day that can still change was read. Identical requests share one computation while
 * it runs. When some day was never computed the answer comes at once, `computing`, with what
 * is known and the rows read so far; otherwise the request waits for the refresh. A failed
 * walk leaves the days already stored as they were and is answered `failed` for
 * `RETRY_AFTER_FAILURE_MS`; then the next request walks again.
 *
 * The zone is canonicalised before it keys anything (`canonicalZone`): `utc`, `Etc/UTC` and
 * `Zulu` are one series and one walk, not three. A computation is a bulk walk: it runs in one
 * of its starter's walk slots (`walk-gate.ts`), waiting its turn behind other walks; one
 * refused a slot is answered `failed` with the reason, like any failed walk.
 */
export function createOverviewService(deps: OverviewServiceDeps) {
  const { upstream, clock, store, cardDirectory } = deps;
  const log = deps.logger.child({ component: 'insights' });
  const jobs = new Map<string, Job>();

  function startJob(
    key: string,
    person: string,
    ctx: CallContext,
    tz: string,
    today: string,
    work: { subAccountId: string; days: string[] }[],
  ): Job {
    const job: Job = { done: Promise.resolve(), rowsRead: 0, estimates: [] };
    // Every row the service lists from now on may be missing from what this walk counts.
    const walkedAt = clock.now();
    const walkAll = async () => {
      // Every page of the computation counts against one budget (`WALK_LIMITS.overview`).
      const budget = walkBudget(WALK_LIMITS.overview, { now: () => clock.now() });
      // Runs of days (many short ones when pending rows are scattered) walked a few at once.
      const limit = pLimit(DAY_WALKS);
      const stop = new AbortController();
      const walks = work.flatMap(({ subAccountId, days }) =>
        consecutiveRuns(days).map((run) => {
          const slot = job.estimates.push(0) - 1;
          return limit(async () => {
            if (stop.signal.aborted) return;
            try {
              await walkDays(
                upstream,
                ctx,
                subAccountId,
                tz,
                run,
                {
                  rows: (n) => {
                    job.rowsRead += n;
                  },
                  estimate: (n) => {
                    job.estimates[slot] = n;
                  },
                  done: (counted) =>
                    store.put(
                      subAccountId,
                      tz,
                      counted.map((d) => ({ ...d, final: isFinal(d, today), walkedAt })),
                    ),
                },
                { budget, signal: stop.signal },
              );
            } catch (error) {
              stop.abort(error);
              throw error;
            }
          });
        }),
      );
      const results = await Promise.allSettled(walks);
      const failed = results.find((r) => r.status === 'rejected');
      if (failed) throw failed.reason;
    };
    job.done = (async () => {
      const release = await deps.walkGate.acquire(person);
      try {
        await walkAll();
      } finally {
        release();
      }
    })().then(
      () => {
        jobs.delete(key);
      },
      (error: unknown) => {
        job.error =
          error instanceof AppError && error.status !== 500
            ? error.message
            : 'The transactions could not be read from the card service.';
        job.failedAt = clock.now();
        log.warn({ err: error, requestId: ctx.requestId }, 'overview walk failed');
      },
    );
    jobs.set(key, job);
    return job;
  }

  /** Failed walks are kept only to say so for a while: then forgotten, and walked again. */
  function forgetFailedJobs() {
    const now = clock.now();
    for (const [key, job] of jobs) {
      if (job.failedAt !== undefined && now - job.failedAt >= RETRY_AFTER_FAILURE_MS) {
        jobs.delete(key);
      }
    }
  }

  return {
    async overview(who: Who, query: OverviewQuery): Promise<Overview> {
      const { from, to, tz, subAccountId, refresh } = checked(query);
      forgetFailedJobs();
      const ctx: CallContext = {
        requestId: who.requestId,
        trace: who.trace,
        role: who.actor.role,
      };
      const all = await allSubAccounts(
        upstream,
        ctx,
        walkBudget(WALK_LIMITS.subAccounts, { now: () => clock.now() }),
      );
      const subs = subAccountId === undefined ? all : all.filter((s) => s.id === subAccountId);
      if (subAccountId !== undefined && subs.length === 0) {
        throw new AppError(404, 'sub_account_not_found', 'There is no such sub account.');
      }
      const length = daysBetween(from, to) + 1;
      const previousFrom = addDays(from, -length);
      const days = dayList(previousFrom, to);
      const now = clock.now();
      const today = localDay(now, tz);
      const wait = refresh === '1' ? Math.min(MIN_REFRESH_MS, deps.refreshMs) : deps.refreshMs;
      const due = (day: DayAggregate | undefined) =>
        !day || (!day.final && now - day.walkedAt >= wait);

      const read = async () =>
        Promise.all(subs.map((s) => store.get(s.id, tz, days).then((k) => [s.id, k] as const)));
      let known = await read();
      const work = known
        .map(([id, got]) => ({ subAccountId: id, days: days.filter((d) => due(got.get(d))) }))
        .filter((w) => w.days.length > 0);
      const neverComputed = known.some(([, got]) => days.some((d) => !got.has(d)));

      const key = JSON.stringify([subs.map((s) => s.id), tz, previousFrom, to]);
      let job = jobs.get(key);
      if (!job && work.length > 0) {
        // A background walk: nobody's browser going away stops it, a shutdown's end does.
        const walkCtx = { ...ctx, bulk: true, signal: deps.cutOff };
        job = startJob(key, who.actor.email, walkCtx, tz, today, work);
      }
      let status: Overview['status'] = 'complete';
      if (job && job.failedAt === undefined && !neverComputed) {
        await job.done;
        known = await read();
      }
      if (job?.failedAt !== undefined) status = 'failed';
      else if (job && neverComputed) status = 'computing';

      await cardDirectory.ready();
      const out = assemble({
        from,
        to,
        tz,
        previousFrom,
        subs,
        known: known.map(([, got]) => got),
        label: (id) => {
          const card = cardDirectory.label(id);
          if (!card) return id;
          return card.last4 ? `${card.name} •••• ${card.last4}` : card.name;
        },
      });
      out.status = status;
      let updatedAt = Number.POSITIVE_INFINITY;
      for (const [, got] of known) {
        for (const day of got.values()) {
          if (!day.final && day.walkedAt < updatedAt) updatedAt = day.walkedAt;
        }
      }
      if (Number.isFinite(updatedAt)) out.updatedAt = new Date(updatedAt).toISOString();
      if (status === 'failed' && job?.error) out.error = job.error;
      if (status === 'computing' && job) {
        const estimated = job.estimates.reduce((a, b) => a + b, 0);
        out.progress = { rowsRead: job.rowsRead };
        if (estimated > 0) out.progress.rowsEstimated = Math.max(estimated, job.rowsRead);
      }
      return out;
    },
  };
}

function checked(query: OverviewQuery) {
  const bad = (message: string) => new AppError(400, 'invalid_query', message);
  const tz = canonicalZone(query.tz);
  if (tz === undefined) {
    throw bad('tz: must be an IANA time zone such as "America/New_York" or "UTC"');
  }
  if (!isIsoDay(query.from)) throw bad('from: must be a calendar day as YYYY-MM-DD');
  if (!isIsoDay(query.to)) throw bad('to: must be a calendar day as YYYY-MM-DD');
  if (query.from > query.to) throw bad('from: must not be after "to"');
  if (daysBetween(query.from, query.to) + 1 > MAX_PERIOD_DAYS) {
    throw bad(`to: a period covers at most ${MAX_PERIOD_DAYS} days`);
  }
  // The answer's period says the zone as it was computed in: the canonical one.
  return { ...query, tz };
}

/** Sorted days as runs of consecutive days. */
function consecutiveRuns(days: readonly string[]): string[][] {
  const runs: string[][] = [];
  for (const day of days) {
    const run = runs[runs.length - 1];
    const last = run?.[run.length - 1];
    if (run && last !== undefined && addDays(last, 1) === day) run.push(day);
    else runs.push([day]);
  }
  return runs;
}

interface AssembleInput {
  from: string;
  to: string;
  tz: string;
  previousFrom: string;
  subs: UpstreamSubAccount[];
  known: Map<string, DayAggregate>[];
  label(cardId: string): string;
}

function assemble(input: AssembleInput): Overview {
  const { from, to, tz, previousFrom, subs, known } = input;
  const previousTo = addDays(from, -1);
  const periodDays = dayList(from, to);
  const previousDays = dayList(previousFrom, previousTo);
  const granularity = periodDays.length <= DAILY_UP_TO_DAYS ? 'day' : 'week';

  /**
   * The days' sum, and their series by day or week. The breakdowns (categories, merchants,
   * cards, decline reasons) only for the period itself: the one before shows only totals.
   */
  const span = (daysOf: string[], breakdowns: boolean) => {
    const sum = emptyDay(daysOf[0] ?? from);
    const series: Overview['series'] = [];
    let point: Overview['series'][number] | undefined;
    for (const day of daysOf) {
      const bucket = granularity === 'day' ? day : mondayOf(day);
      if (point?.day !== bucket) {
        point = { day: bucket, debitsCents: 0, creditsCents: 0, count: 0 };
        series.push(point);
      }
      for (const got of known) {
        const d = got.get(day);
        if (!d) continue;
        if (breakdowns) mergeDay(sum, d);
        else mergeTotals(sum, d);
        point.debitsCents += d.debitsCents;
        point.creditsCents += d.creditsCents;
        point.count += d.count;
      }
    }
    return { sum, series };
  };
  const current = span(periodDays, true);
  const previous = span(previousDays, false);
  const totals = (d: DayAggregate) => ({
    debitsCents: d.debitsCents,
    creditsCents: d.creditsCents,
    pendingCents: d.pendingCents,
    count: d.count,
  });
  const c = current.sum;

  const out: Overview = {
    status: 'complete',
    period: { from, to, tz },
    totals: totals(c),
    previousTotals: totals(previous.sum),
    granularity,
    series: current.series,
    previousSeries: previous.series,
    categories: ranked(c.categories, categoryGroupLabel),
    merchants: ranked(c.merchants, (k) => k).slice(0, TOP),
    cards: ranked(c.cards, input.label).slice(0, TOP),
    declines: {
      count: c.declines,
      rate: c.cardCount === 0 ? 0 : c.declines / c.cardCount,
      reasons: Object.entries(c.declineReasons)
        .map(([reason, count]) => ({ reason, count }))
        .sort((a, b) => b.count - a.count || compare(a.reason, b.reason))
        .slice(0, TOP),
    },
  };
  const balances = subs.flatMap((s) => (s.balance ? [s.balance.amountCents] : []));
  const spends = subs.flatMap((s) => (s.spend ? [s.spend.amountCents] : []));
  if (balances.length) out.balanceCents = balances.reduce((a, b) => a + b, 0);
  if (spends.length) out.spendCents = spends.reduce((a, b) => a + b, 0);
  return out;
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Largest debits first; equal ones by key, so the order never depends on the walk's. */
export function ranked(by: Record<string, [number, number]>, label: (key: string) => string) {
  return Object.entries(by)
    .map(([key, [debitsCents, count]]) => ({ key, label: label(key), debitsCents, count }))
    .sort((a, b) => b.debitsCents - a.debitsCents || compare(a.key, b.key));
}
