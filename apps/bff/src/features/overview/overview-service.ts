import type { Overview, overviewQuerySchema } from '@card-console/shared/api/overview';
import { categoryGroupLabel } from '@card-console/shared/category-groups';
import {
  MERCHANT_DESCRIPTORS,
  type MerchantName,
  merchantsOf,
} from '@card-console/shared/merchants';
import { totalCents } from '@card-console/shared/money';
import { netCardSpendCents, netCardSpendPendingCents } from '@card-console/shared/money-definition';
import type { UpstreamSubAccount } from '@card-console/shared/upstream/sub-account';
import pLimit from 'p-limit';
import type { z } from 'zod';
import { AppError } from '../../core/app-error';
import type {
  DayAggregate,
  DayAggregateStore,
} from '../../platform/day-aggregates/day-aggregate-store';
import { failureBackoffMs } from '../../platform/jobs/failure-backoff';
import { InProcessJobRunner } from '../../platform/jobs/in-process-job-runner';
import type { JobContext, JobRunner } from '../../platform/jobs/job-runner';
import { LockWaitTimeoutError } from '../../platform/locks/keyed-lock';
import type { Who } from '../../platform/sessions/who';
import type { CallContext } from '../../upstream/client';
import { walkBudget } from '../../upstream/paginate';
import { allSubAccounts } from '../../upstream/sub-account-pages';
import { WALK_LIMITS } from '../../upstream/walk-limits';
import type { FeatureDeps } from '../feature-deps';
import type { OverviewTallies } from '../transaction-index';
import { merchantCategoryName } from '../transactions';
import {
  daysFromTallies,
  emptyDay,
  isFinal,
  mergeDay,
  mergeTotals,
  tallyInto,
} from './day-aggregate';
import { DAY_WALKS, PACED_DAY_RUNS, walkDays } from './day-walk';
import { addDays, dayList, dayStart, daysBetween, localDay, mondayOf } from './local-days';

/** An Overview request as its schema checked it (days in order, the zone canonical). */
type OverviewRequest = z.output<typeof overviewQuerySchema>;

/** Periods up to this long are drawn day by day; longer ones week by week. */
export const DAILY_UP_TO_DAYS = 92;
/** Rows of the top merchants, cards and decline reasons. */
export const TOP = 10;
/**
 * Asked to refresh, a day is read again only if it was read at least this long ago: however
 * often someone presses Refresh, one period's days are walked at most once in that time.
 */
export const MIN_REFRESH_MS = 5_000;
/**
 * After a failed walk, requests say so for this long before one tries again: the first time
 * (each next failure in a row waits longer, `failureBackoffMs`).
 */
export const RETRY_AFTER_FAILURE_MS = failureBackoffMs(1);

/** What a computation reports while it runs (`JobRunner` progress). */
interface Progress {
  rowsRead: number;
  /** Per walked run of days, its estimate. */
  estimates: number[];
}

/**
 * The transaction index, where it can answer (`index-search-service.ts`): the tallies of the
 * asked sub accounts over the days whose first instants (and the last one's end) are `edges`,
 * or undefined when it does not hold them all yet.
 */
export interface OverviewIndex {
  overviewTallies(
    who: Who,
    subAccountIds: string[],
    edges: readonly number[],
    /** The period's first day among them: the breakdowns are of the period only. */
    breakdownFrom: number,
    refresh: boolean,
  ): Promise<{ tallies: OverviewTallies; updatedAt?: number } | undefined>;
  /** The merchant each card descriptor names, grouped as the index groups its texts. */
  merchantNames(descriptors: readonly string[]): Promise<Map<string, MerchantName>>;
}

export interface OverviewServiceDeps
  extends Pick<
      FeatureDeps,
      'upstream' | 'clock' | 'logger' | 'cardDirectory' | 'cutOff' | 'walkGate'
    >,
    Partial<Pick<FeatureDeps, 'locks'>> {
  store: DayAggregateStore;
  /** A day that can still change is read again once it was last read this long ago. */
  refreshMs: number;
  /**
   * Where computations run. By default in this process (`InProcessJobRunner`), one replica at
   * a time per period through `locks` (PostgreSQL's, when replicas share the day aggregates).
   */
  jobs?: JobRunner;
  /** Where the Overview is read from once it holds the days (else the card service is walked). */
  index?: OverviewIndex;
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
 * walk leaves the days already stored as they were and is answered `failed` (with when it is
 * tried again) for `RETRY_AFTER_FAILURE_MS`, four times longer after each next failure in a row
 * (`failureBackoffMs`); then the next request walks again.
 *
 * Computations are jobs (`platform/jobs`), keyed by sub accounts, zone and days: started or
 * joined by requests, their progress read while they run, failures remembered for a while,
 * told to stop at a shutdown's cut-off. Replicas sharing the day aggregates share the jobs:
 * one replica computes a period at a time (a lock in PostgreSQL, `locks`); one asked meanwhile
 * waits its turn, then walks only the days still due, which are usually none. Every
 * computation is bounded (`WALK_LIMITS.overview`): a card service whose lists never end makes
 * it `failed`, saying so.
 *
 * The zone is canonicalised before it keys anything (`overviewQuerySchema`): `utc`, `Etc/UTC` and
 * `Zulu` are one series and one walk, not three. A computation is a bulk walk: it runs in one
 * of its starter's walk slots (`walk-gate.ts`), waiting its turn behind other walks; one
 * refused a slot is answered `failed` with the reason, like any failed walk.
 */
export function createOverviewService(deps: OverviewServiceDeps) {
  const { upstream, clock, store, cardDirectory } = deps;
  const log = deps.logger.child({ component: 'overview' });
  /**
   * The merchant of each descriptor, grouped as the index groups its texts (so a row's link to
   * the list by the merchant's name lists the same texts); the descriptors' own grouping when
   * there is no index or it cannot answer.
   */
  const merchantNamesOf = async (texts: string[]): Promise<ReadonlyMap<string, MerchantName>> => {
    if (texts.length === 0) return new Map();
    try {
      if (deps.index) return await deps.index.merchantNames(texts);
    } catch (error) {
      log.warn({ err: error }, 'the index could not group the merchants; grouped here');
    }
    return merchantsOf(texts);
  };
  const jobs =
    deps.jobs ??
    new InProcessJobRunner({
      clock,
      cutOff: deps.cutOff,
      ...(deps.locks ? { lock: deps.locks } : {}),
      failureMemoryMs: failureBackoffMs,
      // Another replica's computation of the period ends within its own budget.
      maxLockWaitMs: WALK_LIMITS.overview.timeMs,
      name: 'overview',
    });
  const readDays = (subs: readonly string[], tz: string, days: string[]) =>
    Promise.all(subs.map((id) => store.get(id, tz, days).then((got) => [id, got] as const)));

  /**
   * One computation: the days of `subs` still due when it has its turn (another replica may
   * have walked them meanwhile), walked in one of `person`'s walk slots and stored.
   */
  const compute =
    (plan: {
      subs: string[];
      tz: string;
      days: string[];
      wait: number;
      person: string;
      ctx: CallContext;
    }) =>
    async (job: JobContext<Progress>) => {
      const { tz, days, wait } = plan;
      // Every row the service lists from now on may be missing from what this walk counts.
      const walkedAt = clock.now();
      const today = localDay(walkedAt, tz);
      const known = await readDays(plan.subs, tz, days);
      const work = known
        .map(([subAccountId, got]) => ({
          subAccountId,
          days: days.filter((d) => isDue(got.get(d), walkedAt, wait)),
        }))
        .filter((w) => w.days.length > 0);
      if (work.length === 0) return;
      // A background walk: nobody's browser going away stops it, a shutdown's end does.
      const ctx = { ...plan.ctx, bulk: true, signal: job.signal };
      try {
        const release = await deps.walkGate.acquire(plan.person);
        try {
          await walkAll(job, ctx, tz, today, walkedAt, work);
        } finally {
          release();
        }
      } catch (error) {
        log.warn({ err: error, requestId: ctx.requestId }, 'overview walk failed');
        throw error;
      }
    };

  async function walkAll(
    job: JobContext<Progress>,
    ctx: CallContext,
    tz: string,
    today: string,
    walkedAt: number,
    work: { subAccountId: string; days: string[] }[],
  ): Promise<void> {
    const { progress } = job;
    // Every page of the computation counts against one budget (`WALK_LIMITS.overview`).
    const budget = walkBudget(WALK_LIMITS.overview, { now: () => clock.now() });
    // Runs of days (many short ones when pending rows are scattered) walked a few at once;
    // more when the card service's pace decides how many of their ranges are open.
    const limit = pLimit(upstream.pace ? PACED_DAY_RUNS : DAY_WALKS);
    const stop = new AbortController();
    const walks = work.flatMap(({ subAccountId, days }) =>
      consecutiveRuns(days).map((run) => {
        const slot = progress.estimates.push(0) - 1;
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
                  progress.rowsRead += n;
                },
                estimate: (n) => {
                  progress.estimates[slot] = n;
                },
                done: (counted) =>
                  store.put(
                    subAccountId,
                    tz,
                    counted.map((d) => ({ ...d, final: isFinal(d, today), walkedAt })),
                  ),
              },
              { budget, signal: stop.signal, log },
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
  }

  return {
    /** `query` as `overviewQuerySchema` checked it: real days in order, a canonical zone. */
    async overview(who: Who, query: OverviewRequest): Promise<Overview> {
      const { from, to, tz, subAccountId, refresh } = query;
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
      const wait = refresh === '1' ? Math.min(MIN_REFRESH_MS, deps.refreshMs) : deps.refreshMs;
      const ids = subs.map((s) => s.id);
      const label = (id: string) => {
        const card = cardDirectory.label(id);
        if (!card) return id;
        return card.last4 ? `${card.name} •••• ${card.last4}` : card.name;
      };
      /** The Overview of the period from its sub accounts' days, cards named. */
      const overviewOf = async (known: Map<string, DayAggregate>[]) => {
        await cardDirectory.ready();
        const texts = new Set<string>();
        for (const got of known) {
          for (const day of got.values()) for (const text in day.merchants) texts.add(text);
        }
        const names = await merchantNamesOf([...texts]);
        return assemble({ from, to, tz, previousFrom, subs, known, label, names });
      };

      // From the index, when it holds every day asked: one grouped query, no walk.
      const edges = [...days.map((d) => dayStart(d, tz)), dayStart(addDays(to, 1), tz)];
      // An index that cannot answer (its engine unreachable) leaves the Overview to walk.
      const indexed = await deps.index
        ?.overviewTallies(who, ids, edges, length, refresh === '1')
        .catch((error: unknown) => {
          log.warn(
            { err: error, requestId: who.requestId },
            'the index could not answer the Overview',
          );
          return undefined;
        });
      if (indexed) {
        const out = await overviewOf(daysFromTallies(indexed.tallies, ids, days));
        if (indexed.updatedAt !== undefined)
          out.updatedAt = new Date(indexed.updatedAt).toISOString();
        out.categoryCodes = topCodes(indexed.tallies);
        return out;
      }

      const read = () => readDays(ids, tz, days);
      let known = await read();
      const anyDue = known.some(([, got]) => days.some((d) => isDue(got.get(d), now, wait)));
      const neverComputed = known.some(([, got]) => days.some((d) => !got.has(d)));

      const key = JSON.stringify([ids, tz, previousFrom, to]);
      let job = jobs.find<Progress>(key);
      if (!job && anyDue) {
        const plan = { subs: ids, tz, days, wait, person: who.actor.email, ctx };
        job = jobs.start(key, compute(plan), { rowsRead: 0, estimates: [] });
      }
      const failure = () => {
        const outcome = job?.outcome();
        return outcome && !outcome.ok ? outcome : undefined;
      };
      let status: Overview['status'] = 'complete';
      if (job && !failure() && !neverComputed) {
        await job.done;
        known = await read();
      }
      const failed = failure();
      if (failed) status = 'failed';
      else if (job && neverComputed) status = 'computing';

      const out = await overviewOf(known.map(([, got]) => got));
      out.status = status;
      let updatedAt = Number.POSITIVE_INFINITY;
      for (const [, got] of known) {
        for (const day of got.values()) {
          if (!day.final && day.walkedAt < updatedAt) updatedAt = day.walkedAt;
        }
      }
      if (Number.isFinite(updatedAt)) out.updatedAt = new Date(updatedAt).toISOString();
      if (failed) {
        out.error = failureMessage(failed.error);
        const retryAt = jobs.retryAt(key);
        if (retryAt !== undefined) out.retryAt = new Date(retryAt).toISOString();
      }
      if (status === 'computing' && job) {
        const { rowsRead, estimates } = job.progress;
        const estimated = estimates.reduce((a, b) => a + b, 0);
        out.progress = { rowsRead };
        if (estimated > 0) out.progress.rowsEstimated = Math.max(estimated, rowsRead);
      }
      return out;
    },
  };
}

/** Whether a day is walked (again): never computed, or not final and last read `wait` ago. */
function isDue(day: DayAggregate | undefined, now: number, wait: number): boolean {
  return !day || (!day.final && now - day.walkedAt >= wait);
}

/** What a failed computation is answered with. */
function failureMessage(error: unknown): string {
  if (error instanceof LockWaitTimeoutError) {
    return 'Another Card Console server is still computing this period. Try again in a moment.';
  }
  return error instanceof AppError && error.status !== 500
    ? error.message
    : 'The transactions could not be read from the card service.';
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
  /** The merchant of each card descriptor of the days. */
  names: ReadonlyMap<string, MerchantName>;
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
        point = { day: bucket, cardSpendCents: 0, count: 0 };
        series.push(point);
      }
      for (const got of known) {
        const d = got.get(day);
        if (!d) continue;
        if (breakdowns) mergeDay(sum, d);
        else mergeTotals(sum, d);
        point.cardSpendCents += netCardSpendCents(d.money);
        point.count += d.count;
      }
    }
    return { sum, series };
  };
  const current = span(periodDays, true);
  const previous = span(previousDays, false);
  const totals = (d: DayAggregate): Overview['totals'] => ({
    cardSpendCents: netCardSpendCents(d.money),
    cardSpendPendingCents: netCardSpendPendingCents(d.money),
    money: d.money,
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
    merchants: byMerchant(c.merchants, input.names).slice(0, TOP),
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
  // Absent when any sub account's figure is (a total counting it as $0 would be wrong).
  const balance = totalCents(subs.map((s) => s.balance?.amountCents));
  const spend = totalCents(subs.map((s) => s.spend?.amountCents));
  if (subs.length > 0 && balance !== undefined) out.balanceCents = balance;
  if (subs.length > 0 && spend !== undefined) out.spendCents = spend;
  return out;
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The period's top merchant category codes by card spend (the index's breakdown is the
 * period's), named. A code that is not four digits is no merchant category code: its rows are
 * in the "No merchant category" group (`categoryGroupOf`), and a line of it could open no list.
 */
export function topCodes(tallies: OverviewTallies): Overview['categories'] {
  const byCode: Record<string, [number, number]> = Object.create(null);
  for (const line of tallies.categories) {
    if (line.key !== null && /^\d{4}$/.test(line.key)) {
      tallyInto(byCode, line.key, line.cents, line.count);
    }
  }
  return ranked(byCode, (code) => merchantCategoryName(code) ?? `Category ${code}`).slice(0, TOP);
}

/**
 * Card spend by merchant: each merchant's descriptors summed (`names`; one not named is its own
 * merchant), largest first, its descriptors most spend first.
 */
export function byMerchant(
  byText: Record<string, [number, number]>,
  names: ReadonlyMap<string, MerchantName>,
): Overview['merchants'] {
  const merchants = new Map<string, { name: string; texts: [string, number, number][] }>();
  for (const [text, [cents, count]] of Object.entries(byText)) {
    // A blank merchant text names no merchant (its line could open no list of its own).
    if (text.trim() === '') continue;
    const named = names.get(text);
    const { key, name } = named?.key ? named : { key: text, name: text };
    const merchant = merchants.get(key) ?? { name, texts: [] };
    merchant.texts.push([text, cents, count]);
    merchants.set(key, merchant);
  }
  return [...merchants.values()]
    .map(({ name, texts }) => {
      texts.sort((a, b) => b[1] - a[1] || compare(a[0], b[0]));
      return {
        key: name,
        label: name,
        spentCents: texts.reduce((sum, [, cents]) => sum + cents, 0),
        count: texts.reduce((sum, [, , count]) => sum + count, 0),
        ways: texts.length,
        descriptors: texts.slice(0, MERCHANT_DESCRIPTORS).map(([text]) => text),
      };
    })
    .sort((a, b) => b.spentCents - a.spentCents || compare(a.key, b.key));
}

/** Largest card spend first; equal ones by key, so the order never depends on the walk's. */
export function ranked(by: Record<string, [number, number]>, label: (key: string) => string) {
  return Object.entries(by)
    .map(([key, [spentCents, count]]) => ({ key, label: label(key), spentCents, count }))
    .sort((a, b) => b.spentCents - a.spentCents || compare(a.key, b.key));
}
