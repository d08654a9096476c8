// A remote card service (`pnpm bench remote-card-service`): the simulator with the demo's data
// (what `pnpm start` generates: DEMO_TRANSACTIONS over the simulator's default sub accounts,
// cards and months, its default rate limit) in its own process, behind a proxy in this process
// that delays every request 80 ms on the way there and 80 ms on the way back (a realistic API
// round trip of 160 ms). The real BFF runs as `pnpm start` runs it (the bundle, production
// mode), pointed at the proxy, each time with a fresh DATA_DIR: its transaction index
// (embedded PGlite) and the Overview's per-day aggregates start cold.
//
// Measured, with the proxy counting every upstream call and the most in flight at once:
// 1. The first sync of the demo's data into the index: its upstream walk's wall time ÷ the
//    round trip (the walk's serial depth), and the end-to-end time a list first says synced
//    (the list's own path, `/api/index/transactions`; the rows synced are then read from its
//    totals, `/api/index/transactions/totals`, outside that time).
// 2. The Overview (all sub accounts) of the last 30 and 365 days: from sign-in to the answer
//    `complete`, asked again every second while `computing` as the SPA does; cold (a fresh BFF
//    each) and once the index has synced (another fresh BFF whose index is warm).
// 3. Index-served answers once warm: the list's page of rows (`/api/index/transactions`, several
//    filters, all sub accounts or one) and the same filters' figures and totals by card
//    (`/api/index/transactions/totals`, which the Transactions screen asks beside the list) and,
//    for comparison, the card-service-served list screens' calls: wall time and upstream calls.
//
// RESUME_CALLS=prefix writes each killed-and-restarted sync's transaction calls (before the kill
// and after the restart: the URL with its dates and cursor, and the rows each answer held) to
// prefix-<engine>.json, to see which ranges a restart asked again.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { Overview } from '@card-console/shared/api/overview';
import type { IndexPage, IndexTotalsAnswer } from '@card-console/shared/api/transaction-index';
import { embeddedIndexHeld, type IndexHeld, postgresIndexHeld } from '../apps/bff/bench/index-held';
import { cpuMicros } from '../apps/bff/bench/process-cpu';
import { loadConfig } from '../apps/bff/src/env';
import { migrateAsOwner, prepareAuditDatabase } from '../apps/bff/src/test/engines/audit-database';
import { type PostgresEngine, startPostgres } from '../apps/bff/src/test/engines/postgres';
import { defaults as simDefaults } from '../apps/card-service-sim/src/options';
import { databaseReady, type RunningBff, startBff } from './lib/bff';
import { startTs } from './lib/child';
import { type CallWindow, type DelayingProxy, startDelayingProxy } from './lib/delaying-proxy';
import { freePort } from './lib/free-port';
import { fmt, spread, verdict } from './lib/stats';

/** Added each way: 160 ms a round trip. */
const DELAY_MS = 80;
const ROUND_TRIP_MS = 2 * DELAY_MS;
/** How often the SPA asks again while the Overview is `computing` or the index is syncing. */
const SPA_POLL_MS = 1_000;
const TIME_ZONE = 'America/New_York';
/** Time for the card service's token bucket (200, refilled at 100 a second) to fill again. */
const REFILL_MS = 2_500;
const LIST_ROUNDS = 3;

const TRANSACTION_ROUTE = (r: string) => r === 'GET /transaction';

interface Answer<T> {
  status: number;
  body: T;
  ms: number;
}

async function get<T>(bff: RunningBff, cookie: string, path: string): Promise<Answer<T>> {
  const started = performance.now();
  const res = await fetch(`${bff.url}${path}`, { headers: { cookie, 'x-csrf': '1' } });
  const body = (await res.json()) as T;
  return { status: res.status, body, ms: performance.now() - started };
}

/** Today in `zone` as YYYY-MM-DD, and the day `n` days before it. */
function localDays(n: number): { from: string; to: string } {
  const fmtDay = (ms: number) =>
    new Intl.DateTimeFormat('en-CA', { timeZone: TIME_ZONE }).format(new Date(ms));
  const to = fmtDay(Date.now());
  const from = new Date(Date.parse(`${to}T12:00:00Z`) - n * 86_400_000).toISOString().slice(0, 10);
  return { from, to };
}

/** Asks again on the SPA's schedule (every second from the first ask) until `done`. */
async function pollLikeTheSpa<T>(
  ask: () => Promise<Answer<T>>,
  done: (body: T) => boolean,
  limitMs = 180_000,
): Promise<{ last: Answer<T>; first: Answer<T>; polls: number }> {
  const started = performance.now();
  const first = await ask();
  let last = first;
  let polls = 1;
  while (!done(last.body)) {
    if (last.status !== 200)
      throw new Error(`answered ${last.status}: ${JSON.stringify(last.body)}`);
    if (performance.now() - started > limitMs) throw new Error(`not done within ${limitMs} ms`);
    const next = started + polls * SPA_POLL_MS;
    await delay(Math.max(0, next - performance.now()));
    last = await ask();
    polls++;
  }
  return { last, first, polls };
}

interface OverviewRun {
  days: number;
  /** Sign-in to the `complete` answer received (what the person sees, with the SPA's polls). */
  seenMs: number;
  /** Sign-in to the last transaction page delivered (the computation's own end). */
  walkEndMs: number;
  signInMs: number;
  polls: number;
  calls: CallWindow;
  transactionCalls: CallWindow;
  rows: number;
  status: Overview['status'];
}

/** Signs in and opens the Overview of the last `days` days, all sub accounts, until complete. */
async function overviewAfterSignIn(
  bff: RunningBff,
  proxy: DelayingProxy,
  days: number,
): Promise<OverviewRun> {
  const { from, to } = localDays(days - 1);
  const path = `/api/overview?from=${from}&to=${to}&tz=${encodeURIComponent(TIME_ZONE)}`;
  const mark = proxy.mark();
  const cookie = await bff.signIn();
  const signInMs = performance.now() - mark;
  const run = await pollLikeTheSpa(
    () => get<Overview>(bff, cookie, path),
    (o) => o.status !== 'computing',
  );
  const seenMs = performance.now() - mark;
  const calls = proxy.window(mark);
  const transactionCalls = proxy.window(mark, Number.POSITIVE_INFINITY, TRANSACTION_ROUTE);
  const lastEnd = Math.max(mark, ...transactionCalls.calls.map((c) => c.end));
  return {
    days,
    seenMs,
    walkEndMs: lastEnd - mark,
    signInMs,
    polls: run.polls,
    calls,
    transactionCalls,
    rows: run.last.body.totals.count + (run.last.body.previousTotals?.count ?? 0),
    status: run.last.body.status,
  };
}

interface SyncRun {
  /**
   * Sign-in to the first list (`GET /api/index/transactions`, its page of rows) that says every
   * sub account synced (SPA's polls).
   */
  seenMs: number;
  /** The first list's answer (opening PGlite and applying its schema are in it). */
  firstAnswerMs: number;
  /** Sign-in to the first list that shows rows (SPA's polls), and whether it said syncing. */
  rowsMs: number;
  rowsWhileSyncing: boolean;
  /** First transaction page asked for to the last delivered: the sync's upstream walk. */
  walkMs: number;
  polls: number;
  calls: CallWindow;
  transactionCalls: CallWindow;
  /** The synced set's count, from its totals (asked once the list says synced, not timed). */
  rows: number;
  /** CPU seconds the BFF's process used from sign-in until the list said synced. */
  bffCpuS: number;
}

/**
 * Signs in and opens the (all sub accounts) transactions list until the index says synced:
 * times the list's own path (`/api/index/transactions`, its page of rows), the same path as
 * before the set's figures became an answer of their own; then reads how many rows synced from
 * `/api/index/transactions/totals` (the same filter), once every time and upstream window here
 * has been taken, so that ask is in none of them.
 */
async function firstSync(bff: RunningBff, proxy: DelayingProxy): Promise<SyncRun> {
  const cpuBefore = cpuMicros(bff.child.pid);
  const mark = proxy.mark();
  const cookie = await bff.signIn();
  let rows: { ms: number; syncing: boolean } | undefined;
  const run = await pollLikeTheSpa(
    () => get<IndexPage>(bff, cookie, '/api/index/transactions'),
    (a) => {
      if (!rows && a.items.length > 0) {
        rows = { ms: performance.now() - mark, syncing: a.freshness.syncing };
      }
      return !a.freshness.syncing && a.freshness.updatedAt !== undefined;
    },
  );
  const seenMs = performance.now() - mark;
  const bffCpuS = (cpuMicros(bff.child.pid) - cpuBefore) / 1e6;
  const transactionCalls = proxy.window(mark, Number.POSITIVE_INFINITY, TRANSACTION_ROUTE);
  const calls = proxy.window(mark);
  // Calls still open when the list said synced (a later refresh) are not the first sync's.
  const ended = transactionCalls.calls.filter((c) => Number.isFinite(c.end));
  const starts = ended.map((c) => c.start);
  const ends = ended.map((c) => c.end as number);
  const totals = await get<IndexTotalsAnswer>(bff, cookie, '/api/index/transactions/totals');
  if (totals.status !== 200)
    throw new Error(`totals answered ${totals.status}: ${JSON.stringify(totals.body)}`);
  if (totals.body.freshness.syncing)
    throw new Error('the totals say syncing after the list did not');
  return {
    seenMs,
    firstAnswerMs: run.first.ms,
    rowsMs: rows?.ms ?? seenMs,
    rowsWhileSyncing: rows?.syncing ?? false,
    walkMs: starts.length ? Math.max(...ends) - Math.min(...starts) : 0,
    polls: run.polls,
    calls,
    transactionCalls,
    rows: totals.body.summary.count,
    bffCpuS,
  };
}

/** Rows the transaction pages of `window` delivered. */
const deliveredRows = (window: CallWindow) =>
  window.calls.reduce((n, call) => n + (call.items ?? 0), 0);

interface ResumeRun {
  /** Transaction pages asked before the kill, and after the restart until synced. */
  before: number;
  /** Transaction pages asked and not yet answered when the process was killed. */
  inFlight: number;
  /** What the index held once the process was gone: its rows and walked days, and pages kept. */
  kept: IndexHeld;
  after: number;
  /** Sign-in on the restarted BFF → its list says synced. */
  resumedMs: number;
  /** Rows the restarted BFF's transaction pages delivered. */
  afterRows: number;
  rows: number;
}

/**
 * Starts a first sync on `bff` (its list asked once), kills its process (SIGKILL, as a crash or
 * an OOM kill does) once `killAt` transaction pages have been asked, starts `restart()` on the
 * same DATA_DIR or database, and counts the pages it asks until its list says synced.
 */
async function killedAndResumed(
  label: string,
  bff: RunningBff,
  proxy: DelayingProxy,
  killAt: number,
  restart: () => Promise<RunningBff>,
  held: () => Promise<ResumeRun['kept']>,
): Promise<ResumeRun> {
  const mark = proxy.mark();
  const cookie = await bff.signIn();
  void get<IndexPage>(bff, cookie, '/api/index/transactions').catch(() => {});
  while (proxy.window(mark, Number.POSITIVE_INFINITY, TRANSACTION_ROUTE).count < killAt) {
    await delay(5);
  }
  const killed = new Promise((exited) => bff.child.process.once('exit', exited));
  const inFlight = proxy.inFlight();
  bff.child.process.kill('SIGKILL');
  await killed;
  await bff.stop();
  const kept = await held();
  const beforeCalls = proxy.window(mark, Number.POSITIVE_INFINITY, TRANSACTION_ROUTE);
  const before = beforeCalls.count;
  // Counted from before the restart: a BFF whose sync job outlived it (the embedded engine's job
  // table) goes on with it as it starts, before anyone signs in.
  const again = proxy.mark();
  const resumed = await restart();
  const signingIn = performance.now();
  const cookie2 = await resumed.signIn();
  await pollLikeTheSpa(
    () => get<IndexPage>(resumed, cookie2, '/api/index/transactions'),
    (a) => !a.freshness.syncing && a.freshness.updatedAt !== undefined,
  );
  const resumedMs = performance.now() - signingIn;
  const afterCalls = proxy.window(again, Number.POSITIVE_INFINITY, TRANSACTION_ROUTE);
  const after = afterCalls.count;
  if (process.env.RESUME_CALLS) {
    writeFileSync(
      `${process.env.RESUME_CALLS}-${label}.json`,
      JSON.stringify({ killAt, before: beforeCalls.calls, after: afterCalls.calls }),
    );
  }
  const totals = await get<IndexTotalsAnswer>(resumed, cookie2, '/api/index/transactions/totals');
  return {
    before,
    inFlight,
    kept,
    after,
    afterRows: deliveredRows(afterCalls),
    resumedMs,
    rows: totals.body.summary.count,
  };
}

interface ListRun {
  what: string;
  path: string;
  ms: number[];
  /** Upstream calls that arrived while each request was open. */
  calls: number[];
  routes: Set<string>;
}

/** Each path `rounds` times, interleaved; upstream calls counted while each is open. */
async function timeLists(
  bff: RunningBff,
  proxy: DelayingProxy,
  cookie: string,
  lists: { what: string; path: string }[],
  rounds: number,
): Promise<ListRun[]> {
  const runs = lists.map((l) => ({
    ...l,
    ms: [] as number[],
    calls: [] as number[],
    routes: new Set<string>(),
  }));
  for (let round = 0; round < rounds; round++) {
    for (const run of runs) {
      const mark = proxy.mark();
      const answer = await get<unknown>(bff, cookie, run.path);
      const end = proxy.mark();
      if (answer.status !== 200)
        throw new Error(`${run.path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      const seen = proxy.window(mark, end);
      run.ms.push(end - mark);
      run.calls.push(seen.count);
      for (const c of seen.calls) run.routes.add(c.route);
    }
  }
  return runs;
}

/** Each sub account's transaction pages and the wall time of its walk (first asked → last delivered). */
function bySubAccount(calls: CallWindow): { pages: number; walkMs: number }[] {
  const subs = new Map<string, { start: number; end: number; pages: number }>();
  for (const c of calls.calls) {
    const sub = new URL(c.url, 'http://x').searchParams.get('subAccountId') ?? '?';
    const s = subs.get(sub) ?? { start: c.start, end: c.end, pages: 0 };
    s.start = Math.min(s.start, c.start);
    s.end = Math.max(s.end, c.end);
    s.pages += 1;
    subs.set(sub, s);
  }
  return [...subs.values()]
    .map((s) => ({ pages: s.pages, walkMs: s.end - s.start }))
    .sort((a, b) => b.pages - a.pages);
}

const { capacity, refillPerSecond } = simDefaults.rateLimit;
/** Round trips `pages` calls take at the simulator's rate limit (a burst, then a steady rate). */
/** Transactions a page of the simulator holds. */
const PAGE_ROWS = simDefaults.pageSize.transactions;
const rateLimitFloor = (pages: number) =>
  1 + (Math.max(0, pages - capacity) / refillPerSecond) * (1000 / ROUND_TRIP_MS);

/**
 * A database set up as docs/operations/replicas.md says (the roles, `pnpm migrate` as the owner):
 * the app's URL. The roles are the cluster's: a later database reuses them and the login.
 */
async function migratedDatabase(
  postgres: PostgresEngine,
  name: string,
  sameLoginAs?: string,
): Promise<string> {
  if (sameLoginAs === undefined) {
    const { ownerUrl, appUrl } = await prepareAuditDatabase(postgres, name);
    await migrateAsOwner(ownerUrl);
    return appUrl;
  }
  await migrateAsOwner(await postgres.createDatabase(name));
  const url = new URL(sameLoginAs);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * Transaction pages the BFF asked for within the wait a 429 asked for (the simulator's
 * Retry-After: whole seconds, at least 1), counted from 100 ms after the 429's delivery (the BFF
 * may send a few before it reads the 429, its thread busy reading other answers): a 429
 * ignored.
 */
function pagesInsideHolds(calls: CallWindow): number {
  const holds = calls.calls.filter((c) => c.status === 429).map((c) => c.end);
  return calls.calls.filter(
    (c) =>
      c.route === 'GET /transaction' &&
      holds.some((end) => c.start > end + 100 && c.start < end + 1_000),
  ).length;
}

const seconds = (ms: number, digits = 2) => fmt(ms / 1000, digits);
const depth = (ms: number) => ms / ROUND_TRIP_MS;

export async function runRemoteCardServiceBench(): Promise<{ markdown: string }> {
  // The demo's size, as `pnpm start` reads it (DEMO_TRANSACTIONS, default 20,000).
  const demoTransactions = loadConfig({
    DEMO_MODE: '1',
    DATA_DIR: tmpdir(),
    LOG_LEVEL: 'silent',
    DEMO_TRANSACTIONS: process.env.DEMO_TRANSACTIONS,
  }).demoTransactions;
  const apiKey = randomBytes(16).toString('hex');
  // The simulator's own entry, as demo mode builds it: default seed, sub accounts, cards,
  // months and rate limit; only the size and the key given.
  const sim = await startTs('apps/card-service-sim/src/main.ts', {
    env: {
      PORT: String(await freePort()),
      CARD_API_KEY: apiKey,
      SIM_TRANSACTIONS: String(demoTransactions),
    },
    ready: /listening on http/,
  });
  const simUrl = /(http:\/\/[^\s]+)/.exec(sim.readyLine)?.[1] as string;
  const proxy = await startDelayingProxy({ target: simUrl, delayMs: DELAY_MS });
  const bffs: RunningBff[] = [];
  let postgres: PostgresEngine | undefined;
  const start = async (env: Record<string, string> = {}) => {
    const bff = await startBff({
      upstreamUrl: proxy.url,
      apiKey,
      build: bffs.length === 0,
      ...(bffs[0] ? { usersFile: bffs[0].usersFile } : {}),
      env,
    });
    bffs.push(bff);
    // Ready as a load balancer would see it (its database open: the embedded engine's first
    // open, initdb, takes seconds); whatever it does by itself at start-up is over, and the card
    // service's bucket is full.
    await databaseReady(bff.url);
    await delay(REFILL_MS);
    return bff;
  };
  try {
    const subAccounts = (await (
      await fetch(`${simUrl}/sub-account`, { headers: { 'x-api-key': apiKey } })
    ).json()) as { items: { id: string }[] };
    const someSub = subAccounts.items[0]?.id as string;
    const cardsPage = (await (
      await fetch(`${simUrl}/card`, { headers: { 'x-api-key': apiKey } })
    ).json()) as { items: { id: string }[] };
    const someCard = cardsPage.items[0]?.id as string;

    // A sanity check of the proxy: one bare call through it.
    const bareMark = proxy.mark();
    await (await fetch(`${proxy.url}/sub-account`, { headers: { 'x-api-key': apiKey } })).json();
    const bareMs = proxy.mark() - bareMark;

    // Cold: a fresh BFF per period (nothing computed, the card directory never filled).
    const cold30 = await overviewAfterSignIn(await start(), proxy, 30);
    const cold365 = await overviewAfterSignIn(await start(), proxy, 365);

    // Warm: a fresh BFF whose index is synced first.
    const bff = await start();
    const sync = await firstSync(bff, proxy);
    await delay(REFILL_MS);
    // Index-served answers right after the sync (within the 30 s its open days count as fresh):
    // each filter's page of rows (the list's path, as before), then the same filters' figures
    // (the totals' path, no order: the Transactions screen asks it beside the list) and totals
    // by card (the totals' `by`, which the list no longer takes).
    const cookie = await bff.signIn();
    const now = Date.now();
    const last30 = `from=${now - 30 * 86_400_000}&to=${now}&minCents=10000`;
    const lists = await timeLists(
      bff,
      proxy,
      cookie,
      [
        { what: 'all sub accounts, no filter', path: '/api/index/transactions' },
        {
          what: 'all, declined or failed',
          path: '/api/index/transactions?status=declined&status=failed',
        },
        { what: 'all, text search "air"', path: '/api/index/transactions?q=air' },
        {
          what: 'all, last 30 days, ≥ $100, by amount',
          path: `/api/index/transactions?${last30}&sort=amount`,
        },
        {
          what: 'one sub account, no filter',
          path: `/api/index/transactions?subAccountId=${someSub}`,
        },
        { what: 'totals: all sub accounts, no filter', path: '/api/index/transactions/totals' },
        {
          what: 'totals: all, declined or failed',
          path: '/api/index/transactions/totals?status=declined&status=failed',
        },
        { what: 'totals: all, text search "air"', path: '/api/index/transactions/totals?q=air' },
        {
          what: 'totals: all, last 30 days, ≥ $100',
          path: `/api/index/transactions/totals?${last30}`,
        },
        { what: 'totals: all, by card', path: '/api/index/transactions/totals?by=card' },
        {
          what: 'totals: one sub account, no filter',
          path: `/api/index/transactions/totals?subAccountId=${someSub}`,
        },
        {
          what: 'totals: one sub account, by card',
          path: `/api/index/transactions/totals?subAccountId=${someSub}&by=card`,
        },
      ],
      LIST_ROUNDS,
    );
    const served = await timeLists(
      bff,
      proxy,
      cookie,
      [
        { what: 'card list (GET /api/cards)', path: '/api/cards' },
        { what: 'sub-account list (GET /api/sub-accounts)', path: '/api/sub-accounts' },
        { what: 'card detail (GET /api/cards/:id)', path: `/api/cards/${someCard}` },
      ],
      LIST_ROUNDS,
    );
    await delay(REFILL_MS);

    // The Overview once the index is warm: never computed by this BFF's Overview.
    const warm30 = await overviewAfterSignIn(bff, proxy, 30);
    await delay(REFILL_MS);
    const warm365 = await overviewAfterSignIn(bff, proxy, 365);
    // And again: the Overview's own per-day aggregates now warm too.
    const again365 = await overviewAfterSignIn(bff, proxy, 365);
    await delay(REFILL_MS);

    // The fewest pages that list the demo's rows: each sub account's, in the simulator's pages.
    const signedIn = await bff.signIn();
    let minimalPages = 0;
    for (const sub of subAccounts.items) {
      const t = await get<IndexTotalsAnswer>(
        bff,
        signedIn,
        `/api/index/transactions/totals?subAccountId=${encodeURIComponent(sub.id)}`,
      );
      minimalPages += Math.ceil(t.body.summary.count / PAGE_ROWS);
    }
    await delay(REFILL_MS);

    // Killed half-way through its first sync, and started again on the same DATA_DIR or
    // database: half the pages of the same kind of BFF's full walk.
    const killedHalfWay = async (
      label: string,
      env: Record<string, string>,
      full: SyncRun,
      held: () => Promise<ResumeRun['kept']>,
    ) =>
      killedAndResumed(
        label,
        await start(env),
        proxy,
        Math.ceil(full.transactionCalls.count / 2),
        () => start(env),
        held,
      );
    const resumeDir = mkdtempSync(join(tmpdir(), 'cc-bench-resume-'));
    const resumed = await killedHalfWay('embedded', { DATA_DIR: resumeDir }, sync, () =>
      embeddedIndexHeld(resumeDir),
    );
    await delay(REFILL_MS);

    // The same first sync with the index in PostgreSQL (DATABASE_URL, as a replica runs), where
    // the index's writes run in the database's process, not on a thread of the BFF's; then
    // killed half-way and started again on the same database.
    postgres = await startPostgres();
    const onceUrl = await migratedDatabase(postgres, 'sync_once');
    const pgSync = await firstSync(await start({ DATABASE_URL: onceUrl }), proxy);
    await delay(REFILL_MS);
    const resumedUrl = await migratedDatabase(postgres, 'sync_resumed', onceUrl);
    const pgResumed = await killedHalfWay('postgres', { DATABASE_URL: resumedUrl }, pgSync, () =>
      postgresIndexHeld(resumedUrl),
    );
    await delay(REFILL_MS);

    const syncDepth = depth(sync.walkMs);
    const pgDepth = depth(pgSync.walkMs);
    const floor = rateLimitFloor(minimalPages);
    const goalDepth = 1.5 * floor;
    const ignored = pagesInsideHolds(sync.calls) + pagesInsideHolds(pgSync.calls);
    const resumeShare = (r: ResumeRun, full: SyncRun) => r.after / full.transactionCalls.count;
    // What a restart would ask were every page answered before the kill kept and the rest walked
    // as the full walk walks it: the pages in flight at the kill are asked again whatever is kept.
    const resumeFloor = (r: ResumeRun, full: SyncRun) =>
      (full.transactionCalls.count - (r.before - r.inFlight)) / full.transactionCalls.count;
    const shareCell = (r: ResumeRun, full: SyncRun) =>
      `${fmt(100 * resumeShare(r, full), 0)} % (floor ${fmt(100 * resumeFloor(r, full), 1)} %)`;
    const syncRows = (label: string, r: SyncRun) => [
      `| ${label}: upstream walk (first transaction page asked → last delivered) | ${seconds(r.walkMs)} s = ${fmt(depth(r.walkMs), 1)} round trips |`,
      `| ${label}: transaction pages / all upstream calls | ${r.transactionCalls.count} / ${r.calls.count} (${r.calls.byRoute}) |`,
      `| ${label}: upstream calls in flight, at most / on average over the walk | ${r.calls.maxInFlight} / ${fmt(r.transactionCalls.meanInFlight, 1)} |`,
      `| ${label}: each sub account's walk, pages and wall time (round trips) | ${bySubAccount(
        r.transactionCalls,
      )
        .map((w) => `${w.pages} pages, ${seconds(w.walkMs)} s (${fmt(depth(w.walkMs), 0)})`)
        .join('; ')} |`,
      `| ${label}: answered 429 by the card service / pages asked within the wait a 429 asked for | ${r.calls.rateLimited} / ${pagesInsideHolds(r.calls)} |`,
      `| ${label}: sign-in → the list shows rows (SPA's asks) | ${seconds(r.rowsMs)} s (${r.rowsWhileSyncing ? 'while it says syncing' : '**once synced**'}) |`,
      `| ${label}: sign-in → the list says synced (SPA's asks) | ${seconds(r.seenMs)} s (${r.polls} asks; the first answer took ${seconds(r.firstAnswerMs)} s) |`,
      `| ${label}: the BFF process's CPU meanwhile (both its threads: the one that reads every answer, and the embedded engine's, where it has one) | ${fmt(r.bffCpuS, 2)} s over ${seconds(r.seenMs)} s (${fmt(r.bffCpuS / (r.seenMs / 1000), 2)} of a core); the walk at the rate limit's floor would take ${seconds(floor * ROUND_TRIP_MS)} s |`,
      `| ${label}: rows synced (the totals' count, asked once the list says synced) | ${r.rows.toLocaleString('en-US')} |`,
    ];
    const resumeRow = (label: string, r: ResumeRun, full: SyncRun) =>
      `| ${label} | ${r.before} (${r.inFlight} unanswered) | ${r.kept.rows.toLocaleString('en-US')} rows (${fmt((100 * r.kept.rows) / r.rows, 0)} %), ${r.kept.days.toLocaleString('en-US')} days; kept of ${r.kept.openRanges} open ranges: ${r.kept.keptPages} pages, ${r.kept.keptRows.toLocaleString('en-US')} rows | ${r.after} of a full walk's ${full.transactionCalls.count} (${shareCell(r, full)}); ${r.after - (full.transactionCalls.count - (r.before - r.inFlight))} more than the floor; ${fmt(r.afterRows / r.after, 1)} rows a page, the full walk's ${fmt(deliveredRows(full.transactionCalls) / full.transactionCalls.count, 1)} | ${seconds(r.resumedMs)} s | ${r.rows.toLocaleString('en-US')} |`;
    const overviewRow = (label: string, r: OverviewRun) =>
      `| ${label} | ${r.days} days${r.status === 'complete' ? '' : ` (**${r.status}**)`} | ${seconds(r.signInMs)} s | ${seconds(r.seenMs)} s (${r.polls} asks) | ${seconds(r.walkEndMs)} s (${fmt(depth(r.walkEndMs), 1)}) | ${r.calls.count} (${r.calls.byRoute}) | ${r.transactionCalls.maxInFlight} | ${r.calls.rateLimited} | ${r.rows.toLocaleString('en-US')} |`;
    const listRow = (r: ListRun) => {
      const s = spread(r.ms);
      return `| ${r.what} | \`${r.path
        .replace(someSub, ':sub')
        .replace(someCard, ':card')
        .replace(
          /from=\d+&to=\d+/,
          'from=…&to=…',
        )}\` | ${fmt(s.median, 0)} (${fmt(s.min, 0)}–${fmt(s.max, 0)}) | ${r.calls.join(', ')} | ${[...r.routes].join(', ') || 'none'} |`;
    };
    const indexCalls = lists.flatMap((l) => l.calls);

    const markdown = [
      `The simulator with the demo's data (${demoTransactions.toLocaleString('en-US')} transactions over its default ${simDefaults.subAccounts} sub accounts, ${simDefaults.cards} cards, ${simDefaults.months} months; its default rate limit of ${capacity} requests at once, refilled at ${refillPerSecond} a second) in its own process, behind a proxy that delays every request ${DELAY_MS} ms on the way there and every answer ${DELAY_MS} ms on the way back (a bare call through it: ${fmt(bareMs, 0)} ms). The BFF as \`pnpm start\` runs it, pointed at the proxy, each with a fresh DATA_DIR (index and Overview cold), signed in to once its \`/readyz\` answers 200 (the embedded engine's first open done); time from sign-in, with the SPA's asks every ${SPA_POLL_MS / 1000} s while it is computing or syncing. Serial depth: a wall time ÷ the ${ROUND_TRIP_MS} ms round trip.`,
      '',
      '**First sync of the demo data into the index** (a fresh BFF; the all-sub-accounts list opened and asked again until it says synced)',
      '',
      '| measure | value |',
      '|---|---|',
      ...syncRows('embedded engine (as `pnpm start`)', sync),
      ...syncRows('PostgreSQL (DATABASE_URL)', pgSync),
      `| the fewest pages that list these rows (each sub account's rows ÷ ${PAGE_ROWS}) | ${minimalPages} |`,
      `| the floor the rate limit sets for them (${capacity} at once, then ${refillPerSecond} a second; one round trip after the last is let through) | ${fmt(floor, 1)} round trips |`,
      '',
      "**Killed half-way through the first sync** (SIGKILL once half a full walk's pages were asked), then started again on the same DATA_DIR or database: the pages the restarted BFF asks until its list says synced",
      '',
      '| index | pages asked before the kill (of them unanswered at the kill) | the index after the kill: rows (of those synced), walked days; pages kept of the ranges open | pages after the restart; rows a page delivered | restart: sign-in → synced | rows synced |',
      '|---|---|---|---|---|---|',
      resumeRow('embedded engine', resumed, sync),
      resumeRow('PostgreSQL', pgResumed, pgSync),
      '',
      '**The Overview, all sub accounts**, from sign-in to `complete` (the computation reads the period and the one before it)',
      '',
      '| BFF | period | sign-in itself | sign-in → complete seen | sign-in → last page delivered (round trips) | upstream calls | pages in flight at most | 429s | rows |',
      '|---|---|---|---|---|---|---|---|---|',
      overviewRow('cold (fresh BFF)', cold30),
      overviewRow('cold (fresh BFF)', cold365),
      overviewRow('index warm, Overview never asked', warm30),
      overviewRow('index warm, Overview never asked', warm365),
      overviewRow('the same period again (its day aggregates warm)', again365),
      '',
      `**Lists once the index is warm**: each filter's page of rows (\`/api/index/transactions\`) and its figures (\`/api/index/transactions/totals\`, with \`by\` its totals by card), asked apart as the Transactions screen asks them (${LIST_ROUNDS} rounds, interleaved; upstream calls counted while each request was open)`,
      '',
      '| list | request | BFF round trip ms: median (min–max) | upstream calls, each round | upstream routes |',
      '|---|---|---|---|---|',
      ...lists.map(listRow),
      ...served.map(listRow),
      '',
      '| target | measured | goal | |',
      '|---|---|---|---|',
      `| serial depth of the first sync of the demo's data, embedded engine (round trips of ${ROUND_TRIP_MS} ms; ${sync.transactionCalls.count} pages, up to ${sync.transactionCalls.maxInFlight} in flight; 1.5 × the rate limit's floor of ${fmt(floor, 1)}) | ${fmt(syncDepth, 1)} | ≤ ${fmt(goalDepth, 1)} | ${verdict(syncDepth <= goalDepth)} |`,
      `| the same, index in PostgreSQL (${pgSync.transactionCalls.count} pages, up to ${pgSync.transactionCalls.maxInFlight} in flight) | ${fmt(pgDepth, 1)} | ≤ ${fmt(goalDepth, 1)} | ${verdict(pgDepth <= goalDepth)} |`,
      `| pages asked within the wait a 429 asked for, both first syncs (${sync.calls.rateLimited + pgSync.calls.rateLimited} answered 429) | ${ignored} | 0 | ${verdict(ignored === 0)} |`,
      `| sign-in → the list's first rows while syncing, fresh deployment, embedded engine (s) | ${seconds(sync.rowsMs)} | ≤ 5 | ${verdict(sync.rowsMs <= 5_000 && sync.rowsWhileSyncing)} |`,
      `| sign-in → the Overview of 30 days complete, fresh deployment (s) | ${seconds(cold30.seenMs)} | ≤ 5 | ${verdict(cold30.seenMs <= 5_000)} |`,
      `| pages after a restart half-way through the first sync ÷ a full walk's, embedded engine (floor: a full walk's pages less those answered before the kill) | ${shareCell(resumed, sync)} | ≤ 55 % | ${verdict(resumeShare(resumed, sync) <= 0.55)} |`,
      `| the same, PostgreSQL | ${shareCell(pgResumed, pgSync)} | ≤ 55 % | ${verdict(resumeShare(pgResumed, pgSync) <= 0.55)} |`,
      `| the Overview of 30 days complete after sign-in, index warm (s; ${warm30.calls.count} upstream calls; cold: ${seconds(cold30.seenMs)} s, ${cold30.calls.count} calls) | ${seconds(warm30.seenMs)} | ≤ 2 | ${verdict(warm30.seenMs <= 2_000)} |`,
      `| the Overview of 365 days complete after sign-in, index warm (s; ${warm365.calls.count} upstream calls; cold: ${seconds(cold365.seenMs)} s, ${cold365.calls.count} calls) | ${seconds(warm365.seenMs)} | ≤ 2 | ${verdict(warm365.seenMs <= 2_000)} |`,
      `| upstream calls made by an index-served list or its totals, the most of ${indexCalls.length} (${lists.length} answers × ${LIST_ROUNDS}) | ${Math.max(...indexCalls)} | 0 | ${verdict(Math.max(...indexCalls) === 0)} |`,
    ].join('\n');
    return { markdown };
  } finally {
    for (const b of bffs) await b.stop();
    await proxy.close();
    await sim.stop();
    await postgres?.destroy();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log((await runRemoteCardServiceBench()).markdown);
  process.exit(0);
}
