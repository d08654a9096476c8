// The receipt inbox (issue 47): the BFF in this process with its embedded index and its real
// receipt reader (a child process: PDF text by unpdf, pictures by tesseract.js OCR), the
// simulator at the demo's size (20,000 transactions over 18 months, 4 sub accounts) in a child
// process. Two demo people (finance, and the admin with their TOTP code) share the uploads.
//   1. Matching quality: 200 receipts made by specFor's default mix (PDFs with a text layer,
//      PNG and JPEG pictures, some turned, some speckled; the shop's own name, a day or three
//      before the posting; restaurants' slips with no tip, a printed tip or a blank tip line) from
//      200 distinct card charges of the synced index, dropped 3 at a time (as the screen sends
//      them) with at most 20 being read at once. Each ends attached (automatically) or suggested;
//      its item's `read` is compared with what was printed to say why a miss missed.
//   2. Latency, the inbox idle: 10 PDFs and 10 pictures one at a time, ms from the upload's
//      start until the inbox lists it read and matched (the reader warm; its first two files,
//      which start it and tesseract, are shown apart); the reader child's CPU per file (/proc).
//   3. 3 rounds of: the transactions list read by both people, one page after another, each a
//      distinct query (filters, orders), idle; then the same while 20 files dropped at once (one
//      person, 3 at a time as the screen sends them, the inbox asked for every 2 s as the screen
//      does) are read. The time until all 20 are read, and the list's p99 under them against
//      idle (every round's reads pooled). Beside it what the BFF did meanwhile: its CPU, the
//      reader's, its event-loop delay, its SQL statements by kind (the engine wrapped to count).
// Then 2 and 3 again with the index on PostgreSQL (a server the bench starts, migrated as
// `pnpm migrate` does), the same files into a fresh BFF. Automatic attaches that failed are
// read from the audit trail. BENCH_RECEIPT_MISSES_DIR=dir keeps each missed file to look at.
// Run: `pnpm bench receipt-inbox` (bench/run.ts); run directly,
// `node --import tsx apps/bff/bench/receipt-inbox.ts` writes bench/report-receipt-inbox.md too.
import { execSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { createHistogram } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { InboxItem, InboxList } from '@card-console/shared/api/receipt-inbox';
import type { IndexTransaction } from '@card-console/shared/api/transaction-index';
import pino from 'pino';
import { migrateDatabase } from '../src/cli/migrate-database';
import { merchantSimilarity } from '../src/features/receipt-inbox/receipt-matching';
import { connectPostgresAudit } from '../src/platform/audit/postgres-audit';
import { openPostgresIndex } from '../src/platform/sql/open-postgres';
import { embeddedEngine, type SqlEngine, type SqlQueryable } from '../src/platform/sql/sql-engine';
import {
  demoAccounts,
  demoAdminTotpSecret,
  demoPassword,
} from '../src/platform/users/demo-accounts';
import { openStores } from '../src/stores';
import { prepareAuditDatabase } from '../src/test/engines/audit-database';
import { startPostgres } from '../src/test/engines/postgres';
import { type ReceiptSpec, renderReceipts, specFor } from '../src/test/receipts/make-receipt';
import { totpCodeAt } from '../src/test/totp-source';
import { startBffInProcess } from './bff-in-process';
import { cpuMicros } from './process-cpu';
import { startSimProcess } from './sim-process';

const TRANSACTIONS = 20_000;
const MONTHS = 18;
const SUB_ACCOUNTS = 4;
const QUALITY = 200;
const SINGLES_EACH = 10;
const AT_ONCE = 20;
/** Files the screen sends at once (apps/web upload-queue.ts, UPLOADS_AT_ONCE). */
const UPLOADS_AT_ONCE = 2;
/** The quality run's pace: no more uploaded while this many are being read. */
const READING_AT_MOST = 20;
/** Rounds of idle list reads, then list reads while AT_ONCE files are read. */
const ROUNDS = 3;
/** Idle list reads per person per round (after 10 each to warm, once). */
const IDLE_READS = 100;
/** How often the one-at-a-time client looks at its inbox (finer than the screen: it times one file). */
const POLL_MS = 100;
/** How often the screen asks for the inbox while files are read (apps/web get-inbox.ts). */
const READING_POLL_MS = 2_000;
const SEED = 47;

type Bff = Awaited<ReturnType<typeof startBffInProcess>>;
type File = Awaited<ReturnType<typeof renderReceipts>>[number];

interface Person {
  email: string;
  headers: Record<string, string>;
}

/** A receipt made from one transaction: what it prints, its file, whose inbox it goes to. */
interface Made {
  tx: IndexTransaction;
  spec: ReceiptSpec;
  file: File;
}

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
};
const fmt = (value: number, digits = 0) =>
  Number.isFinite(value)
    ? value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: 0 })
    : 'n/a';
/** Cents as a receipt prints them: 1,234.50. */
const money = (cents: number) =>
  (Math.abs(cents) / 100).toLocaleString('en-US', {
    minimumFractionDigits: 2,
    maximumFractionDigits: 2,
  });
const verdict = (met: boolean) => (met ? 'met' : '**missed**');
const pct = (n: number, of: number) => (of ? `${fmt((100 * n) / of, 1)}%` : 'n/a');
/** The machine's load average (1, 5, 15 min), as `uptime` shows it. */
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' / ');

/** A seeded generator (mulberry32), so a run can be made again as it was. */
function seeded(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function getJson<T>(bff: Bff, person: Person, path: string): Promise<T> {
  const res = await fetch(`${bff.url}${path}`, { headers: person.headers });
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
  return res.json() as Promise<T>;
}

/** The demo's finance person (the harness's sign-in) and its admin (password and TOTP code). */
async function signInPeople(bff: Bff): Promise<Person[]> {
  const finance = await bff.signIn();
  const { Cookie: _, ...base } = finance;
  const admin = demoAccounts.find((a) => a.role === 'admin');
  const res = await fetch(`${bff.url}/api/session`, {
    method: 'POST',
    headers: { ...base, 'content-type': 'application/json' },
    body: JSON.stringify({
      email: admin?.email,
      password: demoPassword,
      totp: totpCodeAt(demoAdminTotpSecret, Date.now()),
    }),
  });
  if (res.status !== 200) throw new Error(`admin sign-in: ${res.status} ${await res.text()}`);
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  return [
    { email: demoAccounts.find((a) => a.role === 'finance')?.email ?? 'finance', headers: finance },
    { email: admin?.email ?? 'admin', headers: { ...base, Cookie: cookie } },
  ];
}

/** Reads the list until no sync runs (the first read starts it), as test/settled-index.ts. */
async function synced(bff: Bff, person: Person): Promise<number> {
  const started = performance.now();
  for (;;) {
    const body = await getJson<{ freshness: { syncing: boolean } }>(
      bff,
      person,
      '/api/index/transactions?limit=1',
    );
    if (!body.freshness.syncing) return performance.now() - started;
    await delay(250);
  }
}

/** Every card charge (settled or pending, with a card, a debit) in the synced index. */
async function cardCharges(bff: Bff, person: Person): Promise<IndexTransaction[]> {
  const rows: IndexTransaction[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await getJson<{ items: IndexTransaction[]; nextCursor?: string }>(
      bff,
      person,
      `/api/index/transactions?status=settled&status=pending&limit=200${
        cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''
      }`,
    );
    rows.push(...page.items.filter((row) => row.cardId && row.amountCents < 0));
    cursor = page.nextCursor;
    if (!cursor) return rows;
  }
}

/** One file into a person's inbox; a 503 or 429 waits as long as the server asks, as the screen. */
async function upload(bff: Bff, person: Person, file: File): Promise<InboxItem> {
  for (let tries = 0; ; tries++) {
    const res = await fetch(`${bff.url}/api/receipt-inbox`, {
      method: 'POST',
      headers: {
        ...person.headers,
        'content-type': 'application/octet-stream',
        'x-file-name': file.fileName,
      },
      body: new Uint8Array(file.bytes),
    });
    if (res.status === 201) return (await res.json()) as InboxItem;
    const text = await res.text();
    if ((res.status === 503 || res.status === 429) && tries < 20) {
      await delay(Math.max(1, Number(res.headers.get('retry-after') ?? 1)) * 1000);
      continue;
    }
    throw new Error(`upload ${file.fileName}: ${res.status} ${text}`);
  }
}

const inbox = (bff: Bff, person: Person) => getJson<InboxList>(bff, person, '/api/receipt-inbox');

/**
 * The reader's child process (reader-child.ts) of this process, once it runs: the youngest,
 * since a BFF stopped earlier leaves its idle one until its idle time ends.
 */
function readerPid(): number | undefined {
  /** Its start time (clock ticks since boot) when `pid` is a reader child of this process. */
  const readerStart = (pid: string) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) !== process.pid) return undefined;
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('reader-child')) return undefined;
      return Number(fields[19]);
    } catch {
      return undefined; // gone while looked at
    }
  };
  // Looked for afresh each time: a new BFF's reader starts while an older one may still idle.
  let found: number | undefined;
  let youngest = -1;
  for (const entry of readdirSync('/proc')) {
    const start = /^\d+$/.test(entry) ? readerStart(entry) : undefined;
    if (start !== undefined && start > youngest) {
      youngest = start;
      found = Number(entry);
    }
  }
  return found;
}

/**
 * Time a task (`/proc/<pid>/task/<tid>`) or all of a process's threads spent waiting for a CPU
 * while runnable (the run queue), ms: from schedstat's second field.
 */
function runQueueWaitMs(path: string, threads: boolean): number | undefined {
  const waitOf = (file: string) => Number(readFileSync(file, 'utf8').trim().split(' ')[1]) / 1e6;
  try {
    if (!threads) return waitOf(`${path}/schedstat`);
    let sum = 0;
    for (const tid of readdirSync(`${path}/task`)) {
      try {
        sum += waitOf(`${path}/task/${tid}/schedstat`);
      } catch {
        // the thread ended meanwhile
      }
    }
    return sum;
  } catch {
    return undefined;
  }
}

/**
 * CPU time the reader's child processes spend from now until `stop` (ms), sampled every 250 ms
 * so a child killed by a budget or replaced meanwhile is counted up to its last sample; and,
 * after `stop`, `waitMs`: how long its threads waited for a CPU meanwhile (nice 10 on a busy
 * machine: starved), which tells a reader short of CPU from one short of work.
 */
function readerCpu() {
  const base = new Map<number, { cpu: number; wait: number }>();
  const last = new Map<number, { cpu: number; wait: number }>();
  const sample = (first = false) => {
    const pid = readerPid();
    if (pid === undefined) return;
    let cpu: number;
    try {
      cpu = cpuMicros(pid) / 1000;
    } catch {
      return;
    }
    const wait = runQueueWaitMs(`/proc/${pid}`, true) ?? 0;
    if (!base.has(pid)) base.set(pid, first ? { cpu, wait } : { cpu: 0, wait: 0 });
    last.set(pid, { cpu, wait });
  };
  sample(true);
  const timer = setInterval(sample, 250);
  const tracker = {
    waitMs: 0,
    stop(): number {
      clearInterval(timer);
      sample();
      let total = 0;
      for (const [pid, now] of last) {
        const from = base.get(pid) ?? { cpu: 0, wait: 0 };
        total += now.cpu - from.cpu;
        tracker.waitMs += Math.max(0, now.wait - from.wait);
      }
      return total;
    },
  };
  return tracker;
}

/** This process's main thread (its JavaScript, and PGlite when embedded): run-queue wait, ms. */
const mainThreadWaitMs = () => runQueueWaitMs(`/proc/self/task/${process.pid}`, false) ?? 0;

interface Single {
  kind: 'pdf' | 'picture';
  format: ReceiptSpec['format'];
  /** From the upload's start until the inbox listed it read and matched. */
  ms: number;
  uploadMs: number;
  /** CPU the reader child spent meanwhile (its OCR or PDF parse, plus its idle ticks). */
  readerCpuMs: number;
  /** How the inbox first listed it once read: `suggested` for a moment when attached next. */
  firstStatus: InboxItem['status'];
  /** Its status at the end of the latency runs, and whether it went to its own transaction. */
  status: InboxItem['status'];
  right: boolean;
  load: string;
  made: Made;
  item: InboxItem;
}

/** One file dropped while nothing else is read; ms until it is read and matched. */
async function oneAtATime(bff: Bff, person: Person, made: Made): Promise<Single> {
  const cpu = readerCpu();
  const started = performance.now();
  const item = await upload(bff, person, made.file);
  const uploadMs = performance.now() - started;
  for (;;) {
    const list = await inbox(bff, person);
    const now = list.items.find((i) => i.id === item.id);
    if (now && now.status !== 'reading') {
      const ms = performance.now() - started;
      return {
        kind: made.spec.format === 'pdf' ? 'pdf' : 'picture',
        format: made.spec.format,
        ms,
        uploadMs,
        readerCpuMs: cpu.stop(),
        firstStatus: now.status,
        status: now.status,
        right: ownOf(now) === made.tx.id,
        load: load(),
        made,
        item: now,
      };
    }
    if (performance.now() - started > 120_000) throw new Error(`${made.file.fileName}: not read`);
    await delay(POLL_MS);
  }
}

/** The transaction an item went to or suggests first. */
const ownOf = (item: InboxItem) =>
  item.status === 'attached' ? item.attached?.transactionId : item.suggestions[0]?.transactionId;

/**
 * The list reads of one person, each distinct: month-close.ts's mix of filters and orders
 * (status, a size floor, a search, date or amount order either way, a page of 100), made
 * distinct by its size floor.
 */
function listQueries(count: number): string[] {
  const statuses = ['settled', 'pending', 'declined', 'refund'];
  const words = ['air', 'cloud', 'cafe', 'fuel'];
  const seen = new Set<string>();
  const out: string[] = [];
  for (let i = 0; out.length < count; i++) {
    const parts = ['limit=100', `sort=${i % 2 ? 'amount' : 'date'}`];
    if (i % 3 === 0) parts.push(`status=${statuses[i % statuses.length]}`);
    parts.push(`minCents=${i % 5 === 0 ? (i * 137) % 50_000 : i}`);
    if (i % 7 === 0) parts.push(`q=${words[i % words.length]}`);
    parts.push(`direction=${i % 4 < 2 ? 'desc' : 'asc'}`);
    const path = `/api/index/transactions?${parts.join('&')}`;
    if (seen.has(path)) continue;
    seen.add(path);
    out.push(path);
  }
  return out;
}

/**
 * Each person reads their own queries one after another (the next once the last is answered)
 * until their list ends, or until `until` says stop (then running out of queries is an error);
 * ms of each read.
 */
async function listReads(
  bff: Bff,
  people: Person[],
  queries: string[][],
  until?: () => boolean,
): Promise<number[]> {
  const ms: number[] = [];
  await Promise.all(
    people.map(async (person, p) => {
      for (const path of queries[p] ?? []) {
        if (until?.()) return;
        const started = performance.now();
        await getJson(bff, person, path);
        ms.push(performance.now() - started);
      }
      if (until && !until()) throw new Error('ran out of distinct list queries');
    }),
  );
  return ms;
}

interface StatementCost {
  count: number;
  /** Wall ms, waiting for the engine included. */
  ms: number;
  maxMs: number;
}
type Statements = Map<string, StatementCost>;

/** SQL statements the BFF runs, by kind (verb and first table), into `into` while it is set. */
class Tally {
  into: Statements | undefined;
  add(text: string, ms: number) {
    if (!this.into) return;
    const flat = text.replace(/\s+/g, ' ').trim();
    const verb = (flat.split(' ')[0] ?? '').toUpperCase();
    const table = /\b(?:FROM|INTO|UPDATE)\s+([a-z_]+)/i.exec(flat)?.[1] ?? '';
    const kind = `${verb} ${table}`.trim();
    const known = this.into.get(kind) ?? { count: 0, ms: 0, maxMs: 0 };
    known.count++;
    known.ms += ms;
    known.maxMs = Math.max(known.maxMs, ms);
    this.into.set(kind, known);
  }
}

/** The engine, its statements (and those of its transactions) counted and timed in `tally`. */
function tallied(engine: SqlEngine, tally: Tally): SqlEngine {
  const timed = (q: SqlQueryable): SqlQueryable => ({
    async query<R extends object>(text: string, params?: readonly unknown[]) {
      if (!tally.into) return q.query<R>(text, params);
      const started = performance.now();
      try {
        return await q.query<R>(text, params);
      } finally {
        tally.add(text, performance.now() - started);
      }
    },
  });
  const outside = timed(engine);
  return {
    kind: engine.kind,
    sharesThread: engine.sharesThread,
    query: (text, params) => outside.query(text, params),
    transaction: (work) => engine.transaction((tx) => work(timed(tx))),
    background: (work) => engine.background(work),
    withMigrationClient: (use) => engine.withMigrationClient(use),
    refreshStatistics: (tables) => engine.refreshStatistics(tables),
    close: () => engine.close(),
  };
}

/**
 * What some stretches of the run cost together (the idle windows, or the loaded ones): this
 * process (the BFF, and PGlite when embedded: it runs in it), the reader child, this process's
 * event-loop delay (a PGlite statement blocks it), the SQL statements.
 */
const LAG_TICK_MS = 10;

class Meter {
  seconds = 0;
  bffCpuMs = 0;
  bffWaitMs = 0;
  readerCpuMs = 0;
  readerWaitMs = 0;
  readonly statements: Statements = new Map();
  /** How late a 10 ms timer fires, µs: this process's event-loop delay while metered. */
  private readonly lag = createHistogram();

  constructor(private readonly tally: Tally) {}

  start() {
    const cpu = process.cpuUsage();
    const waited = mainThreadWaitMs();
    const reader = readerCpu();
    let last = performance.now();
    const ticks = setInterval(() => {
      const now = performance.now();
      this.lag.record(Math.max(1, Math.round((now - last - LAG_TICK_MS) * 1000)));
      last = now;
    }, LAG_TICK_MS);
    this.tally.into = this.statements;
    const started = performance.now();
    return () => {
      this.tally.into = undefined;
      clearInterval(ticks);
      const used = process.cpuUsage(cpu);
      this.seconds += (performance.now() - started) / 1000;
      this.bffCpuMs += (used.user + used.system) / 1000;
      this.readerCpuMs += reader.stop();
      this.readerWaitMs += reader.waitMs;
      this.bffWaitMs += mainThreadWaitMs() - waited;
    };
  }

  cost(): PhaseCost {
    return {
      seconds: this.seconds,
      bffCpuMs: this.bffCpuMs,
      bffWaitMs: this.bffWaitMs,
      readerCpuMs: this.readerCpuMs,
      readerWaitMs: this.readerWaitMs,
      loopP99Ms: this.lag.percentile(99) / 1000,
      loopMaxMs: this.lag.max / 1000,
      statements: [...this.statements].sort((a, b) => b[1].ms - a[1].ms),
    };
  }
}

interface PhaseCost {
  seconds: number;
  bffCpuMs: number;
  /** Its main thread's time runnable but waiting for a CPU. */
  bffWaitMs: number;
  readerCpuMs: number;
  readerWaitMs: number;
  loopP99Ms: number;
  loopMaxMs: number;
  statements: [string, StatementCost][];
}

interface Round {
  idleP99Ms: number;
  idleReads: number;
  idleLoad: string;
  /** The first upload's start → all 20 read and matched (seen by the screen's poll). */
  atOnceMs: number;
  atOnceReaderCpuMs: number;
  /** The reader child's threads runnable but waiting for a CPU meanwhile. */
  atOnceReaderWaitMs: number;
  loadP99Ms: number;
  loadReads: number;
  atOnceLoad: string;
}

interface Latency {
  engine: string;
  syncMs: number;
  cold: Single[];
  singles: Single[];
  rounds: Round[];
  /** Every round's idle reads together, and every round's reads under the 20. */
  idleMs: number[];
  loadedMs: number[];
  idleCost: PhaseCost;
  loadCost: PhaseCost;
  /** The 20s' items, for their judgement. */
  atOnceItems: { made: Made; item: InboxItem }[];
  /** Automatic attaches that failed (the audit trail's failed `inbox.attach`), by its detail. */
  failedAttaches: string[];
}

/**
 * Goals 2 and 3 on a BFF: the reader's first files, then one at a time; then ROUNDS rounds of
 * idle list reads followed by list reads while 20 files are read (interleaved, so the machine's
 * other load drifts over both alike).
 */
async function latency(
  bff: Bff,
  people: Person[],
  engine: string,
  syncMs: number,
  sets: { warm: Made[]; singles: Made[]; atOnce: Made[][] },
  tally: Tally,
): Promise<Latency> {
  const [finance, admin] = people as [Person, Person];
  console.error(`[${engine}] reader's first files (load ${load()})`);
  const cold: Single[] = [];
  for (const made of sets.warm) cold.push(await oneAtATime(bff, finance, made));

  console.error(`[${engine}] ${sets.singles.length} one at a time (load ${load()})`);
  const singles: Single[] = [];
  for (const [i, made] of sets.singles.entries()) {
    await delay(500);
    singles.push(await oneAtATime(bff, i % 2 ? admin : finance, made));
  }

  // The transactions list: distinct queries throughout, each person their own.
  const all = listQueries((10 + sets.atOnce.length * (IDLE_READS + 3000)) * people.length);
  const queries = people.map((_, p) => all.filter((_, i) => i % people.length === p));
  let next = 0;
  const take = (n: number) => {
    const slice = queries.map((q) => q.slice(next, next + n));
    next += n;
    return slice;
  };
  await listReads(bff, people, take(10));

  const idleMeter = new Meter(tally);
  const loadMeter = new Meter(tally);
  const rounds: Round[] = [];
  const idleMs: number[] = [];
  const loadedMs: number[] = [];
  const atOnceItems: { made: Made; item: InboxItem }[] = [];
  for (const [r, batch] of sets.atOnce.entries()) {
    console.error(`[${engine}] round ${r + 1}: list reads, idle (load ${load()})`);
    const idleLoadBefore = load();
    const idleStop = idleMeter.start();
    const idle = await listReads(bff, people, take(IDLE_READS));
    idleStop();
    const idleLoad = `${idleLoadBefore} → ${load()}`;

    console.error(`[${engine}] round ${r + 1}: ${batch.length} at once (load ${load()})`);
    const atOnceLoadBefore = load();
    const reader = readerCpu();
    const loadStop = loadMeter.start();
    let allRead = false;
    const started = performance.now();
    const under = listReads(bff, people, take(3000), () => allRead);
    const idOf = new Map<Made, string>();
    const queue = [...batch];
    await Promise.all(
      Array.from({ length: UPLOADS_AT_ONCE }, async () => {
        for (let made = queue.shift(); made; made = queue.shift()) {
          idOf.set(made, (await upload(bff, finance, made.file)).id);
        }
      }),
    );
    const ids = [...idOf.values()];
    let list: InboxList;
    for (;;) {
      list = await inbox(bff, finance);
      const reading = list.items.filter((i) => ids.includes(i.id) && i.status === 'reading');
      if (reading.length === 0) break;
      if (performance.now() - started > 600_000) throw new Error('the 20 were never read');
      // As the screen asks while files are read (not faster: that would add load of its own).
      await delay(READING_POLL_MS);
    }
    const atOnceMs = performance.now() - started;
    allRead = true;
    const loaded = await under;
    loadStop();
    const atOnceReaderCpuMs = reader.stop();
    const atOnceReaderWaitMs = reader.waitMs;
    for (const made of batch) {
      const item = list.items.find((i) => i.id === idOf.get(made));
      if (!item) throw new Error(`${made.file.fileName} is not in the inbox`);
      atOnceItems.push({ made, item });
    }
    idleMs.push(...idle);
    loadedMs.push(...loaded);
    rounds.push({
      idleP99Ms: quantile(idle, 0.99),
      idleReads: idle.length,
      idleLoad,
      atOnceMs,
      atOnceReaderCpuMs,
      atOnceReaderWaitMs,
      loadP99Ms: quantile(loaded, 0.99),
      loadReads: loaded.length,
      atOnceLoad: `${atOnceLoadBefore} → ${load()}`,
    });
  }
  // Judged as they ended: a certain match is saved as suggested, then attached by a second
  // transaction, and a look between the two sees it suggested.
  await delay(2000);
  const finals = new Map<string, InboxItem>();
  for (const person of people) {
    for (const item of (await inbox(bff, person)).items) finals.set(item.id, item);
  }
  for (const single of [...cold, ...singles]) {
    single.item = finals.get(single.item.id) ?? single.item;
    single.status = single.item.status;
    single.right = ownOf(single.item) === single.made.tx.id;
  }
  for (const entry of atOnceItems) entry.item = finals.get(entry.item.id) ?? entry.item;
  const failedAttaches: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await getJson<{ items: { detail?: string }[]; nextCursor?: string }>(
      bff,
      admin,
      `/api/audit?action=inbox.attach&outcome=failed${cursor ? `&cursor=${cursor}` : ''}`,
    );
    failedAttaches.push(...page.items.map((record) => record.detail ?? '(no detail)'));
    cursor = page.nextCursor;
  } while (cursor);
  return {
    engine,
    syncMs,
    cold,
    singles,
    rounds,
    idleMs,
    loadedMs,
    idleCost: idleMeter.cost(),
    loadCost: loadMeter.cost(),
    atOnceItems,
    failedAttaches,
  };
}

type Outcome = 'attached right' | 'suggested first' | 'attached WRONG' | 'suggested wrong' | 'none';

interface Judged {
  made: Made;
  item: InboxItem;
  outcome: Outcome;
  /** The right one among the suggestions, not first. */
  lower: boolean;
  reason?: string;
}

const tipKind = (spec: ReceiptSpec) => spec.tipLine ?? 'none';
const formatOf = (spec: ReceiptSpec) =>
  spec.format === 'pdf'
    ? 'PDF'
    : `${spec.format.toUpperCase()}${spec.rotateDeg ? ', turned' : ''}${spec.noise ? ', speckled' : ''}`;
const similarity = (read: string | undefined, tx: IndexTransaction) =>
  read
    ? Math.max(
        merchantSimilarity(read, tx.description),
        tx.merchant ? merchantSimilarity(read, tx.merchant.description) : 0,
      )
    : 0;

/** Why a receipt missed, from its read against what it printed: the first field that is off. */
function reasonOf(made: Made, item: InboxItem): string {
  const read = item.read ?? {};
  const ocr = made.spec.format === 'pdf' ? '' : ' (OCR)';
  if (read.problem) return `not read at all: ${read.problem}`;
  if (read.totalCents === undefined) return `total not read${ocr}`;
  if (read.totalCents !== made.spec.totalCents) return `total misread${ocr}`;
  if (read.date === undefined) return `date not read${ocr}`;
  if (read.date !== made.spec.date) return `date misread${ocr}`;
  const sameMerchant = similarity(read.merchant, made.tx) >= 0.5;
  if (made.spec.tipLine === 'blank' && !sameMerchant) {
    return 'tip: blank tip line (total ≠ charge) and merchant not matched';
  }
  if (!sameMerchant) return read.merchant ? 'merchant mismatch' : `merchant not read${ocr}`;
  if (made.spec.tipLine === 'blank') return 'tip: blank tip line, outranked';
  return 'every field read right: outranked by another transaction';
}

function judge(made: Made, item: InboxItem): Judged {
  const own = ownOf(item);
  let outcome: Outcome;
  if (item.status === 'attached')
    outcome = own === made.tx.id ? 'attached right' : 'attached WRONG';
  else if (item.status === 'suggested') {
    outcome = own === made.tx.id ? 'suggested first' : 'suggested wrong';
  } else outcome = 'none';
  const lower =
    outcome === 'suggested wrong' && item.suggestions.some((s) => s.transactionId === made.tx.id);
  const right = outcome === 'attached right' || outcome === 'suggested first';
  return { made, item, outcome, lower, ...(right ? {} : { reason: reasonOf(made, item) }) };
}

interface Quality {
  judged: Judged[];
  ms: number;
  readerCpuMs: number;
  load: string;
}

/** Goal 1: the 200 dropped (3 at a time, at most 20 being read), then judged. */
async function quality(bff: Bff, people: Person[], set: Made[]): Promise<Quality> {
  const loadBefore = load();
  const cpu = readerCpu();
  const started = performance.now();
  const owner = new Map<Made, Person>(set.map((m, i) => [m, people[i % people.length] as Person]));
  const idOf = new Map<Made, string>();
  const lists = new Map<Person, InboxList>();
  const look = async () => {
    for (const person of people) lists.set(person, await inbox(bff, person));
  };
  /** Uploaded and not seen read yet: the ones the last look saw reading, and any sent since. */
  let sentSinceLook = 0;
  const reading = () =>
    sentSinceLook + [...lists.values()].reduce((n, l) => n + l.counts.reading, 0);
  let uploading = true;
  const looking = (async () => {
    while (uploading) {
      const sent = sentSinceLook;
      await look();
      sentSinceLook -= sent;
      await delay(500);
    }
  })();
  const queue = [...set];
  try {
    await Promise.all(
      Array.from({ length: UPLOADS_AT_ONCE }, async () => {
        for (let made = queue.shift(); made; made = queue.shift()) {
          while (reading() >= READING_AT_MOST) await delay(200);
          sentSinceLook++;
          idOf.set(made, (await upload(bff, owner.get(made) as Person, made.file)).id);
          if (idOf.size % 20 === 0) {
            console.error(`  ${idOf.size} of ${set.length} sent (load ${load()})`);
          }
        }
      }),
    );
  } finally {
    uploading = false;
    await looking;
  }
  for (;;) {
    await look();
    if ([...lists.values()].every((l) => l.counts.reading === 0)) {
      // Judged as they ended: a certain match is saved as suggested, then attached.
      await delay(2000);
      await look();
      break;
    }
    if (performance.now() - started > 3_600_000) throw new Error('the 200 were never read');
    await delay(1000);
  }
  const ms = performance.now() - started;
  const judged = set.map((made) => {
    const item = lists.get(owner.get(made) as Person)?.items.find((i) => i.id === idOf.get(made));
    if (!item) throw new Error(`${made.file.fileName} is not in its inbox`);
    return judge(made, item);
  });
  return {
    judged,
    ms,
    readerCpuMs: cpu.stop(),
    load: `${loadBefore} → ${load()}`,
  };
}

export interface ReceiptInboxResult {
  rightShare: number;
  wrongAttached: number;
  pdfP50Ms: number;
  pdfMaxMs: number;
  pictureP50Ms: number;
  pictureMaxMs: number;
  atOnceMs: number;
  loadP99Ms: number;
  idleP99Ms: number;
  markdown: string;
}

/** A table: header cells, then rows. */
const table = (head: string[], rows: (string | number)[][]) =>
  [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');

/** Each miss: what was printed, what was read, what it became, why. */
function missTable(misses: Judged[]): string {
  const rows = misses.map((j) => {
    const read = j.item.read ?? {};
    const top = j.item.attached ?? j.item.suggestions[0];
    const topText = top
      ? `${top.description}, ${'transactionAt' in top ? top.transactionAt.slice(0, 10) : top.at.slice(0, 10)}, ${money(top.amountCents)}`
      : '—';
    return [
      j.made.file.fileName,
      formatOf(j.made.spec),
      tipKind(j.made.spec),
      `${j.made.spec.merchant}; ${j.made.spec.date}; ${money(j.made.spec.totalCents)} (charge ${money(j.made.tx.amountCents)}, ${j.made.tx.merchant?.description ?? j.made.tx.description}, ${j.made.tx.date.slice(0, 10)}, ${j.made.tx.status})`,
      `${read.merchant ?? '—'}; ${read.date ?? '—'}; ${read.totalCents === undefined ? '—' : money(read.totalCents)}${read.problem ? ` (${read.problem})` : ''}`,
      `${j.outcome}${j.lower ? ' (right one lower)' : ''}: ${topText}${j.item.suggestions.length > 1 ? ` (+${j.item.suggestions.length - 1} more)` : ''}`,
      j.reason ?? '',
    ];
  });
  return table(
    ['file', 'format', 'tip line', 'printed (and the charge)', 'read', 'became', 'reason'],
    rows,
  );
}

function qualityMarkdown(q: Quality): string {
  const { judged } = q;
  const count = (f: (j: Judged) => boolean) => judged.filter(f).length;
  const outcomes: Outcome[] = [
    'attached right',
    'suggested first',
    'attached WRONG',
    'suggested wrong',
    'none',
  ];
  const misses = judged.filter((j) => j.reason);
  const reasons = [...new Set(misses.map((j) => j.reason as string))].sort(
    (a, b) => count((j) => j.reason === b) - count((j) => j.reason === a),
  );
  const formats = ['pdf', 'png', 'jpeg'] as const;
  const ofFormat = (f: string) => (j: Judged) => j.made.spec.format === f;
  const right = (j: Judged) => j.outcome === 'attached right' || j.outcome === 'suggested first';
  const tips = ['none', 'printed', 'blank'] as const;
  const restaurant = judged.filter((j) =>
    ['5812', '5813', '5814'].includes(j.made.tx.merchant?.categoryCode ?? ''),
  );
  const fieldRows = [
    ...formats.map((f) => [f.toUpperCase(), judged.filter(ofFormat(f))] as const),
    ['turned pictures', judged.filter((j) => j.made.spec.rotateDeg)] as const,
    ['speckled pictures', judged.filter((j) => j.made.spec.noise)] as const,
    [
      'pictures with a total of 1,000.00 or more (a thousands comma)',
      judged.filter((j) => j.made.spec.format !== 'pdf' && j.made.spec.totalCents >= 100_000),
    ] as const,
    [
      'pictures with a total under 1,000.00',
      judged.filter((j) => j.made.spec.format !== 'pdf' && j.made.spec.totalCents < 100_000),
    ] as const,
    ['all', judged] as const,
  ].map(([label, set]) => {
    const n = set.length;
    const c = (f: (j: Judged) => boolean) => set.filter(f).length;
    return [
      label,
      n,
      pct(c(right), n),
      pct(
        c((j) => j.item.read?.totalCents === j.made.spec.totalCents),
        n,
      ),
      pct(
        c((j) => j.item.read?.date === j.made.spec.date),
        n,
      ),
      pct(
        c((j) => similarity(j.item.read?.merchant, j.made.tx) >= 0.5),
        n,
      ),
      c((j) => Boolean(j.item.read?.problem)),
    ];
  });
  return [
    `The ${judged.length} receipts: ${formats.map((f) => `${count(ofFormat(f))} ${f.toUpperCase()}`).join(', ')}; ${count((j) => Boolean(j.made.spec.rotateDeg))} pictures turned, ${count((j) => Boolean(j.made.spec.noise))} speckled; ${restaurant.length} from restaurants, their tip lines ${tips.map((t) => `${t} ${restaurant.filter((j) => tipKind(j.made.spec) === t).length}`).join(', ')}; ${count((j) => j.made.tx.status === 'pending')} of pending charges. Read and matched in ${fmt(q.ms / 1000, 0)} s (reader child CPU ${fmt(q.readerCpuMs / 1000, 0)} s; load ${q.load}).`,
    '',
    table(
      ['outcome', 'receipts', 'PDF', 'PNG', 'JPEG'],
      outcomes.map((o) => [
        o,
        count((j) => j.outcome === o),
        ...formats.map((f) => count((j) => j.outcome === o && ofFormat(f)(j))),
      ]),
    ),
    '',
    `Of the "suggested wrong", the right transaction was among the suggestions (not first) for ${count((j) => j.lower)}.`,
    '',
    'Misses by reason (the first field read off that differs from what the receipt prints; "(OCR)" on pictures):',
    '',
    misses.length
      ? table(
          ['reason', 'misses', 'PDF', 'PNG', 'JPEG', 'blank tip line'],
          reasons.map((r) => [
            r,
            count((j) => j.reason === r),
            ...formats.map((f) => count((j) => j.reason === r && ofFormat(f)(j))),
            count((j) => j.reason === r && j.made.spec.tipLine === 'blank'),
          ]),
        )
      : 'none',
    '',
    'What the reader got right, by format (merchant: the name read agrees with the card descriptor as the matcher weighs it, similarity ≥ 0.5):',
    '',
    table(
      [
        'format',
        'receipts',
        'right transaction',
        'total read right',
        'date read right',
        'merchant agrees',
        'not read at all',
      ],
      fieldRows,
    ),
    '',
    `By tip line (restaurants): ${tips
      .map((t) => {
        const s = restaurant.filter((j) => tipKind(j.made.spec) === t);
        return `${t}: ${s.filter(right).length} of ${s.length} right`;
      })
      .join('; ')}.`,
    '',
    misses.length
      ? 'Each miss (printed: name; date; total — read: the same — what it became):'
      : '',
    '',
    misses.length ? missTable(misses) : '',
  ].join('\n');
}

const maxOf = (values: number[]) => (values.length ? Math.max(...values) : Number.NaN);
const idleP99 = (l: Latency) => quantile(l.idleMs, 0.99);
const loadedP99 = (l: Latency) => quantile(l.loadedMs, 0.99);
const slowestAtOnce = (l: Latency) => maxOf(l.rounds.map((r) => r.atOnceMs));

function latencyMarkdown(l: Latency): string {
  const row = (s: Single, i: number) => [
    i + 1,
    s.format.toUpperCase(),
    fmt(s.ms),
    fmt(s.uploadMs),
    fmt(s.readerCpuMs),
    s.firstStatus === s.status ? s.status : `${s.firstStatus} → ${s.status}`,
    s.right ? 'yes' : 'no',
    s.load,
  ];
  const pdf = l.singles.filter((s) => s.kind === 'pdf');
  const pictures = l.singles.filter((s) => s.kind === 'picture');
  const stats = (set: Single[], f: (s: Single) => number) =>
    `p50 ${fmt(quantile(set.map(f), 0.5))}, max ${fmt(maxOf(set.map(f)))}`;
  const atOnceRight = l.atOnceItems.filter(({ made, item }) => ownOf(item) === made.tx.id).length;
  return [
    `${l.engine}: the index synced in ${fmt(l.syncMs / 1000, 1)} s. Of the ${l.singles.length} files one at a time, ${l.singles.filter((s) => s.firstStatus === 'suggested' && s.status === 'attached').length} were first listed as suggested and attached a moment later (a certain match is saved as suggested, then attached in a second transaction; the screen can show it suggested in between).`,
    '',
    table(
      ['measure', 'value', 'load (1 / 5 / 15 min)'],
      [
        [
          "the reader's first files (its child started by the first, tesseract by the first picture): upload → read and matched, ms",
          l.cold
            .map((s) => `${s.format.toUpperCase()} ${fmt(s.ms)} (reader CPU ${fmt(s.readerCpuMs)})`)
            .join('; '),
          l.cold.map((s) => s.load).join('; '),
        ],
        [
          `${pdf.length} PDFs one at a time, idle, the reader warm: upload → read and matched, ms (reader child CPU per file, ms)`,
          `${stats(pdf, (s) => s.ms)} (${stats(pdf, (s) => s.readerCpuMs)})`,
          `${pdf[0]?.load} → ${pdf.at(-1)?.load}`,
        ],
        [
          `${pictures.length} pictures (PNG, JPEG) one at a time, idle, the reader warm: upload → read and matched, ms (reader child CPU per picture, ms: the OCR)`,
          `${stats(pictures, (s) => s.ms)} (${stats(pictures, (s) => s.readerCpuMs)})`,
          `${pictures[0]?.load} → ${pictures.at(-1)?.load}`,
        ],
        ...l.rounds.flatMap((r, i) => [
          [
            `round ${i + 1}: transactions list, idle: ${r.idleReads} distinct reads (2 people, one after another each), p99 ms`,
            fmt(r.idleP99Ms, 1),
            r.idleLoad,
          ],
          [
            `round ${i + 1}: ${AT_ONCE} files dropped at once (one person, ${UPLOADS_AT_ONCE} sent at a time; the inbox asked for every 2 s as the screen does): the first upload's start → all read and matched, ms (reader child: CPU ms, waiting for a CPU ms); meanwhile the list: ${r.loadReads} distinct reads, p99 ms`,
            `${fmt(r.atOnceMs)} (${fmt(r.atOnceReaderCpuMs)}, ${fmt(r.atOnceReaderWaitMs)}); list p99 ${fmt(r.loadP99Ms, 1)} (${fmt(r.loadP99Ms / r.idleP99Ms, 2)}× the round's idle)`,
            r.atOnceLoad,
          ],
        ]),
        [
          `all rounds: transactions list idle (${l.idleMs.length} reads) → while the ${AT_ONCE}s were read (${l.loadedMs.length} reads), p50 / p99 ms`,
          `${fmt(quantile(l.idleMs, 0.5), 1)} / ${fmt(idleP99(l), 1)} → ${fmt(quantile(l.loadedMs, 0.5), 1)} / ${fmt(loadedP99(l), 1)} (p99 ${fmt(loadedP99(l) / idleP99(l), 2)}×)`,
          '',
        ],
        [
          `the ${l.atOnceItems.length} files dropped ${AT_ONCE} at once: right transaction attached or first`,
          `${atOnceRight} of ${l.atOnceItems.length}`,
          '',
        ],
      ],
    ),
    '',
    `What the BFF did meanwhile, the idle list reads (${fmt(l.idleCost.seconds, 1)} s in all) against the list reads while the ${AT_ONCE}s were read (${fmt(l.loadCost.seconds, 1)} s): CPU of this process (the BFF${l.engine === 'PostgreSQL' ? '' : ' and PGlite, which runs in it'}) and of the reader child, per second; this process's event-loop delay; SQL statements per second and wall ms per second in each kind, the slowest one's ms (waiting for the engine included; the heaviest kinds under load):`,
    '',
    costTable(l.idleCost, l.loadCost),
    '',
    whyListSlower(l),
    '',
    whereAtOnceWent(l),
    '',
    l.failedAttaches.length
      ? `Automatic attaches that failed (the audit trail's failed \`inbox.attach\`; the item stays suggested): ${l.failedAttaches.length}: ${[...new Set(l.failedAttaches)].map((d) => `${d} × ${l.failedAttaches.filter((x) => x === d).length}`).join('; ')}.`
      : "Automatic attaches that failed (the audit trail's failed `inbox.attach`): none.",
    '',
    latencyMisses(l),
    '',
    `<details><summary>${l.engine}: each file one at a time</summary>`,
    '',
    table(
      ['#', 'format', 'ms', 'upload ms', 'reader CPU ms', 'listed as (then)', 'right', 'load'],
      l.singles.map(row),
    ),
    '',
    '</details>',
  ].join('\n');
}

function costTable(idle: PhaseCost, loaded: PhaseCost): string {
  const perSecond = (value: number, cost: PhaseCost) => value / cost.seconds;
  const totals = (cost: PhaseCost) =>
    cost.statements.reduce((sum, [, v]) => ({ count: sum.count + v.count, ms: sum.ms + v.ms }), {
      count: 0,
      ms: 0,
    });
  const kindCell = (v: StatementCost | undefined, cost: PhaseCost) =>
    v
      ? `${fmt(perSecond(v.count, cost), 1)} (${fmt(perSecond(v.ms, cost))}; slowest ${fmt(v.maxMs)})`
      : '—';
  const idleOf = new Map(idle.statements);
  const rows: (string | number)[][] = [
    [
      'CPU of this process, ms per s (its main thread runnable but waiting for a CPU, ms per s)',
      `${fmt(perSecond(idle.bffCpuMs, idle))} (${fmt(perSecond(idle.bffWaitMs, idle))})`,
      `${fmt(perSecond(loaded.bffCpuMs, loaded))} (${fmt(perSecond(loaded.bffWaitMs, loaded))})`,
    ],
    [
      'CPU of the reader child, ms per s (its threads waiting for a CPU, ms per s)',
      `${fmt(perSecond(idle.readerCpuMs, idle))} (${fmt(perSecond(idle.readerWaitMs, idle))})`,
      `${fmt(perSecond(loaded.readerCpuMs, loaded))} (${fmt(perSecond(loaded.readerWaitMs, loaded))})`,
    ],
    [
      'event-loop delay p99 / max, ms',
      `${fmt(idle.loopP99Ms, 1)} / ${fmt(idle.loopMaxMs, 1)}`,
      `${fmt(loaded.loopP99Ms, 1)} / ${fmt(loaded.loopMaxMs, 1)}`,
    ],
    [
      'SQL statements per s (wall ms per s)',
      `${fmt(perSecond(totals(idle).count, idle), 1)} (${fmt(perSecond(totals(idle).ms, idle))})`,
      `${fmt(perSecond(totals(loaded).count, loaded), 1)} (${fmt(perSecond(totals(loaded).ms, loaded))})`,
    ],
    ...loaded.statements
      .slice(0, 12)
      .map(([kind, v]) => [
        `\`${kind}\` per s (wall ms per s; slowest ms)`,
        kindCell(idleOf.get(kind), idle),
        kindCell(v, loaded),
      ]),
  ];
  return table(['', 'idle list reads', `list reads while the ${AT_ONCE}s are read`], rows);
}

const latencyJudged = (l: Latency) => [
  ...l.cold.map((s) => judge(s.made, s.item)),
  ...l.singles.map((s) => judge(s.made, s.item)),
  ...l.atOnceItems.map(({ made, item }) => judge(made, item)),
];

/**
 * When the list's p99 under the 20s is over 1.2× its idle p99: by how much, and what the BFF did
 * more meanwhile (from the meters: CPU, event-loop delay, the statements added or grown).
 */
function whyListSlower(l: Latency): string {
  const ratio = loadedP99(l) / idleP99(l);
  if (ratio <= 1.2) return '';
  const idle = l.idleCost;
  const loaded = l.loadCost;
  const per = (value: number, cost: PhaseCost) => value / cost.seconds;
  const idleOf = new Map(idle.statements);
  const added = loaded.statements
    .map(([kind, v]) => {
      const before = idleOf.get(kind);
      return {
        kind,
        msPerS: per(v.ms, loaded) - (before ? per(before.ms, idle) : 0),
        countPerS: per(v.count, loaded) - (before ? per(before.count, idle) : 0),
      };
    })
    .filter((a) => a.msPerS > 5)
    .sort((a, b) => b.msPerS - a.msPerS);
  const allMs = (cost: PhaseCost) => cost.statements.reduce((sum, [, v]) => sum + v.ms, 0);
  return [
    `Why the list is slower under the ${AT_ONCE}s (${l.engine}): its p99 is ${fmt(ratio, 2)}× the idle p99, ${fmt((ratio / 1.2 - 1) * 100, 0)}% over the 1.2× goal (${fmt(loadedP99(l) - 1.2 * idleP99(l), 0)} ms too slow at p99). This process used ${fmt(per(idle.bffCpuMs, idle))} ms of CPU per second idle and ${fmt(per(loaded.bffCpuMs, loaded))} under the ${AT_ONCE}s, its main thread waiting for a CPU ${fmt(per(idle.bffWaitMs, idle))} and ${fmt(per(loaded.bffWaitMs, loaded))} ms per second${l.engine === 'PostgreSQL' ? '' : ' (one thread runs the BFF and PGlite: about one core is its ceiling)'}; its event loop ran late by ${fmt(idle.loopP99Ms, 0)} ms at p99 idle, ${fmt(loaded.loopP99Ms, 0)} ms under them. The SQL statements took ${fmt(per(allMs(idle), idle))} ms per second idle and ${fmt(per(allMs(loaded), loaded))} under the ${AT_ONCE}s; what the inbox added, by kind (wall ms per second, statements per second): ${added.map((a) => `\`${a.kind}\` +${fmt(a.msPerS)} (+${fmt(a.countPerS, 1)}/s)`).join(', ')}. The reader child, a separate process at nice 10, used ${fmt(per(loaded.readerCpuMs, loaded))} ms of CPU per second.`,
  ].join('\n');
}

/**
 * What the reader did in each round of 20: the CPU it used (what reading them needs) against
 * the round's time, and how long its threads were runnable but waiting for a CPU (summed over
 * its threads, so it can pass the round's time): a reader short of CPU rather than of work.
 */
function whereAtOnceWent(l: Latency): string {
  const parts = l.rounds.map(
    (r, i) =>
      `round ${i + 1}: ${fmt(r.atOnceMs / 1000, 1)} s, in which the reader used ${fmt(r.atOnceReaderCpuMs / 1000, 1)} s of CPU (${fmt((100 * r.atOnceReaderCpuMs) / r.atOnceMs, 0)}% of one core) while its threads waited ${fmt(r.atOnceReaderWaitMs / 1000, 1)} s for a CPU`,
  );
  return `The reader during the ${AT_ONCE}s (${l.engine}; one file at a time, at nice 10): ${parts.join('; ')}.`;
}

/** The latency files' own outcomes (not counted in the quality goal), and their misses. */
function latencyMisses(l: Latency): string {
  const judged = latencyJudged(l);
  const misses = judged.filter((j) => j.reason);
  const count = (o: Outcome) => judged.filter((j) => j.outcome === o).length;
  return [
    `The ${judged.length} latency files' own outcomes (not in the quality goal): attached right ${count('attached right')}, suggested first ${count('suggested first')}, attached WRONG ${count('attached WRONG')}, suggested wrong ${count('suggested wrong')}, none ${count('none')}.`,
    ...(misses.length ? ['', missTable(misses)] : []),
  ].join('\n');
}

/**
 * With BENCH_RECEIPT_MISSES_DIR set, each missed file and what it printed, to look at, and every
 * judged item of `name` in one file.
 */
async function keepMisses(name: string, judged: Judged[]): Promise<void> {
  const dir = process.env.BENCH_RECEIPT_MISSES_DIR;
  if (!dir) return;
  await mkdir(dir, { recursive: true });
  await writeFile(
    join(dir, `${name}.json`),
    JSON.stringify(
      judged.map((j) => ({
        file: j.made.file.fileName,
        outcome: j.outcome,
        reason: j.reason,
        printed: j.made.spec,
        transaction: j.made.tx,
        item: j.item,
      })),
      null,
      2,
    ),
  );
  for (const j of judged.filter((x) => x.reason)) {
    await writeFile(join(dir, j.made.file.fileName), j.made.file.bytes);
    await writeFile(
      join(dir, `${j.made.file.fileName}.json`),
      JSON.stringify({ spec: j.made.spec, tx: j.made.tx, item: j.item, reason: j.reason }, null, 2),
    );
  }
}

export async function runReceiptInboxBench(): Promise<ReceiptInboxResult> {
  const began = performance.now();
  const uptimeStart = load();
  const apiKey = `bench-${randomBytes(8).toString('hex')}`;
  // The demo's size: 20,000 transactions, 18 months, 4 sub accounts (sim-child.ts reads it).
  process.env.BENCH_SUB_ACCOUNTS = String(SUB_ACCOUNTS);
  const sim = await startSimProcess(TRANSACTIONS, apiKey, MONTHS);
  const limits = { API_RATE_LIMIT_PER_MINUTE: '1000000' };
  try {
    // The embedded engine as the app opens it by default (DATA_DIR/transaction-index), its
    // statements counted: what the index and the inbox ask of it while the 20 are read.
    const tally = new Tally();
    const quiet = pino({ level: 'silent' });
    const dataDir = await mkdtemp(join(tmpdir(), 'inbox-bench-'));
    const embeddedStores = openStores({
      open: async () => tallied(await embeddedEngine(join(dataDir, 'transaction-index')), tally),
      logger: quiet,
    });
    const embedded = await startBffInProcess(sim.url, apiKey, limits, { stores: embeddedStores });
    let q: Quality;
    let embeddedLatency: Latency;
    let sets: { warm: Made[]; singles: Made[]; atOnce: Made[][] };
    let renderMs: number;
    let charges: number;
    const latencyFiles = 2 + 2 * SINGLES_EACH + ROUNDS * AT_ONCE;
    try {
      const people = await signInPeople(embedded);
      const syncMs = await synced(embedded, people[0] as Person);
      const all = await cardCharges(embedded, people[0] as Person);
      charges = all.length;
      // The quality set and the latency files, each of a distinct charge drawn at random (seeded).
      const rng = seeded(SEED);
      const pool = [...all];
      const drawn: IndexTransaction[] = [];
      while (drawn.length < QUALITY + latencyFiles && pool.length) {
        drawn.push(pool.splice(Math.floor(rng() * pool.length), 1)[0] as IndexTransaction);
      }
      const specOf = (tx: IndexTransaction, format?: ReceiptSpec['format']) =>
        specFor(
          {
            description: tx.description,
            ...(tx.merchant
              ? { merchant: tx.merchant.description, categoryCode: tx.merchant.categoryCode }
              : {}),
            amountCents: tx.amountCents,
            at: tx.date,
          },
          rng,
          format ? { format } : {},
        );
      const specs: ReceiptSpec[] = drawn.map((tx, i) => {
        if (i < QUALITY) return specOf(tx);
        const j = i - QUALITY;
        if (j === 0) return specOf(tx, 'pdf');
        if (j === 1) return specOf(tx, 'png');
        const k = j - 2;
        // One at a time: PDF, picture, PDF, picture… (pictures PNG and JPEG in turn).
        if (k < 2 * SINGLES_EACH) {
          return specOf(tx, k % 2 === 0 ? 'pdf' : k % 4 === 1 ? 'png' : 'jpeg');
        }
        return specOf(tx);
      });
      console.error(`rendering ${specs.length} receipts (load ${load()})`);
      const renderStarted = performance.now();
      const files = await renderReceipts(specs);
      renderMs = performance.now() - renderStarted;
      const made: Made[] = drawn.map((tx, i) => ({
        tx,
        spec: specs[i] as ReceiptSpec,
        file: files[i] as File,
      }));
      const firstAtOnce = QUALITY + 2 + 2 * SINGLES_EACH;
      sets = {
        warm: made.slice(QUALITY, QUALITY + 2),
        singles: made.slice(QUALITY + 2, firstAtOnce),
        atOnce: Array.from({ length: ROUNDS }, (_, r) =>
          made.slice(firstAtOnce + r * AT_ONCE, firstAtOnce + (r + 1) * AT_ONCE),
        ),
      };
      embeddedLatency = await latency(embedded, people, 'embedded engine', syncMs, sets, tally);
      console.error(`quality: ${QUALITY} receipts (load ${load()})`);
      q = await quality(embedded, people, made.slice(0, QUALITY));
      await keepMisses('quality', q.judged);
      await keepMisses('latency-embedded', latencyJudged(embeddedLatency));
    } catch (error) {
      // Said at once: a cleanup that hangs would otherwise hide it.
      console.error(error);
      throw error;
    } finally {
      await embedded.stop();
      await embeddedStores.close();
      await rm(dataDir, { recursive: true, force: true, maxRetries: 5 });
    }

    // The same latency runs on PostgreSQL: a fresh BFF, the same files.
    const logger = pino({ level: 'silent' });
    const cluster = await startPostgres();
    let postgresLatency: Latency;
    try {
      const { ownerUrl, appUrl: url } = await prepareAuditDatabase(cluster, 'card_console_inbox');
      await migrateDatabase(ownerUrl, logger);
      const audit = await connectPostgresAudit({ url, logger });
      const stores = openStores({
        open: async () => tallied(await openPostgresIndex({ url, logger }), tally),
        migrate: false,
        kind: 'postgres',
        logger,
      });
      const onPostgres = await startBffInProcess(sim.url, apiKey, limits, {
        stores,
        audit: audit.store,
      });
      try {
        const people = await signInPeople(onPostgres);
        const syncMs = await synced(onPostgres, people[0] as Person);
        postgresLatency = await latency(onPostgres, people, 'PostgreSQL', syncMs, sets, tally);
        await keepMisses('latency-postgres', latencyJudged(postgresLatency));
      } finally {
        await onPostgres.stop();
        await stores.close();
        await audit.close();
      }
    } finally {
      await cluster.stop();
    }

    const right = q.judged.filter(
      (j) => j.outcome === 'attached right' || j.outcome === 'suggested first',
    ).length;
    const wrongAttached = q.judged.filter((j) => j.outcome === 'attached WRONG').length;
    const l = embeddedLatency;
    const pdf = l.singles.filter((s) => s.kind === 'pdf').map((s) => s.ms);
    const pictures = l.singles.filter((s) => s.kind === 'picture').map((s) => s.ms);
    const result = {
      rightShare: right / q.judged.length,
      wrongAttached,
      pdfP50Ms: quantile(pdf, 0.5),
      pdfMaxMs: maxOf(pdf),
      pictureP50Ms: quantile(pictures, 0.5),
      pictureMaxMs: maxOf(pictures),
      atOnceMs: slowestAtOnce(l),
      loadP99Ms: loadedP99(l),
      idleP99Ms: idleP99(l),
    };
    const targetRows = (lat: Latency, engine: string) => {
      const p = lat.singles.filter((s) => s.kind === 'pdf').map((s) => s.ms);
      const pic = lat.singles.filter((s) => s.kind === 'picture').map((s) => s.ms);
      const picCpu = lat.singles.filter((s) => s.kind === 'picture').map((s) => s.readerCpuMs);
      const ratio = loadedP99(lat) / idleP99(lat);
      return [
        [
          `one PDF read and matched after its upload, inbox idle, ${engine} (ms; p50 of ${p.length}, max)`,
          `${fmt(quantile(p, 0.5))} (max ${fmt(maxOf(p))})`,
          '≤ 5,000',
          verdict(maxOf(p) <= 5000),
        ],
        [
          `one picture (PNG, JPEG) read by OCR and matched after its upload, inbox idle, ${engine} (ms; p50 of ${pic.length}, max; reader CPU per picture p50)`,
          `${fmt(quantile(pic, 0.5))} (max ${fmt(maxOf(pic))}; CPU ${fmt(quantile(picCpu, 0.5))})`,
          '≤ 5,000',
          verdict(maxOf(pic) <= 5000),
        ],
        [
          `${AT_ONCE} uploaded at once, all read and matched, ${engine} (ms; the slowest of ${lat.rounds.length} rounds, each round's)`,
          `${fmt(slowestAtOnce(lat))} (${lat.rounds.map((r) => fmt(r.atOnceMs)).join(', ')})`,
          '≤ 60,000',
          verdict(slowestAtOnce(lat) <= 60_000),
        ],
        [
          `transactions list p99 while ${AT_ONCE} are read ÷ idle p99, same run, ${engine} (${fmt(loadedP99(lat), 1)} ms over ${fmt(idleP99(lat), 1)} ms; ${lat.loadedMs.length} and ${lat.idleMs.length} distinct reads by 2 people, ${lat.rounds.length} rounds of idle then loaded)`,
          `${fmt(ratio, 2)}×`,
          '≤ 1.2×',
          verdict(ratio <= 1.2),
        ],
      ];
    };
    const targets = table(
      ['target', 'measured', 'goal', ''],
      [
        [
          `${QUALITY} generated receipts (${q.judged.filter((j) => j.made.spec.format === 'pdf').length} PDF, ${q.judged.filter((j) => j.made.spec.format !== 'pdf').length} pictures): the right transaction attached or the top suggestion`,
          `${right} of ${q.judged.length} (${pct(right, q.judged.length)})`,
          '≥ 90%',
          verdict(right / q.judged.length >= 0.9),
        ],
        [
          'receipts attached automatically to a wrong transaction',
          String(wrongAttached),
          '0',
          verdict(wrongAttached === 0),
        ],
        ...targetRows(embeddedLatency, 'embedded engine'),
        ...targetRows(postgresLatency, 'PostgreSQL'),
      ],
    );
    const took = (performance.now() - began) / 1000;
    const markdown = [
      `${TRANSACTIONS.toLocaleString('en')} transactions over ${MONTHS} months in ${SUB_ACCOUNTS} sub accounts (the demo's size; the simulator in a child process, seed 11), ${fmt(charges, 0)} of them card charges (settled or pending, with a card, a debit); the BFF in this process with its real receipt reader (one child process at nice 10, one file at a time) and its index's SQL engine (PGlite opened as the app opens it by default, or PostgreSQL) wrapped to count and time its statements. Two demo people signed in (finance; the admin with their TOTP code): the quality set alternates between their inboxes (${QUALITY / 2} each), both read the transactions list. The ${QUALITY + latencyFiles} receipts (${QUALITY} for quality, ${latencyFiles} for latency, each of a distinct charge drawn at random) made by specFor's default mix (the one-at-a-time files' formats forced) and rendered by Chromium in ${fmt(renderMs / 1000, 0)} s before anything was measured.`,
      '',
      `Machine load (1 / 5 / 15 min, as \`uptime\`): ${uptimeStart} at the start, ${load()} at the end; ${cpus().length} cores, shared with other work during the run (the load beside each figure below). Run took ${fmt(took, 0)} s.`,
      '',
      targets,
      '',
      '### Matching quality (embedded engine)',
      '',
      qualityMarkdown(q),
      '',
      '### Latency, embedded engine',
      '',
      latencyMarkdown(embeddedLatency),
      '',
      '### Latency, PostgreSQL',
      '',
      latencyMarkdown(postgresLatency),
    ].join('\n');
    return { ...result, markdown };
  } finally {
    await sim.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  // Run directly: the report as `pnpm bench receipt-inbox` writes it (bench/run.ts's header).
  const started = Date.now();
  const r = await runReceiptInboxBench();
  const title = 'The receipt inbox (matching quality, reading latency, the list meanwhile)';
  const section = `## ${title}\n\n${r.markdown}\n\n_took ${Math.round((Date.now() - started) / 1000)} s_\n`;
  const rows = r.markdown
    .split('\n')
    .map((line) =>
      line
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim()),
    )
    .filter((cells) => cells.length >= 4 && ['met', '**missed**'].includes(cells.at(-1) ?? ''))
    .map(
      (cells) => `| ${title} | ${cells[0]} | ${cells.at(-3)} | ${cells.at(-2)} | ${cells.at(-1)} |`,
    );
  let chromium = 'not found';
  try {
    chromium = execSync('/usr/bin/chromium --version', {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    // none
  }
  // The command as run: the BFF's serve flags (bench/run.ts's asServed) and tsx's loader.
  const command = [
    ...(process.env.MALLOC_TRIM_THRESHOLD_
      ? [`MALLOC_TRIM_THRESHOLD_=${process.env.MALLOC_TRIM_THRESHOLD_}`]
      : []),
    ...(process.env.BENCH_RECEIPT_MISSES_DIR
      ? [`BENCH_RECEIPT_MISSES_DIR=${process.env.BENCH_RECEIPT_MISSES_DIR}`]
      : []),
    'node',
    ...process.execArgv.map((arg) => (arg.includes('/tsx/') ? 'tsx' : arg)),
    'apps/bff/bench/receipt-inbox.ts',
  ].join(' ');
  const header = [
    '# Card Console benchmark report',
    '',
    `Written by \`${command}\` on ${new Date().toISOString()} (directly: what \`pnpm bench receipt-inbox\` runs, with the Node flags it gives the BFF's benchmarks).`,
    '',
    '| machine | |',
    '|---|---|',
    `| CPU | ${cpus().length} × ${cpus()[0]?.model ?? 'unknown'} |`,
    `| memory | ${Math.round(totalmem() / 2 ** 30)} GiB |`,
    `| node | ${process.version} |`,
    `| chromium | ${chromium} |`,
    '',
    'Method: every figure is measured side by side in one run on this machine; where rounds are',
    'repeated they are interleaved across the compared targets, and each cell shows median',
    '(min–max). Ratios, not absolute times, are what carry from one machine to another.',
    '',
    '## Summary',
    '',
    '| benchmark | target | measured | goal | |',
    '|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
  const file = join(
    fileURLToPath(new URL('../../../bench/', import.meta.url)),
    'report-receipt-inbox.md',
  );
  writeFileSync(file, `${header}\n${section}`);
  console.log(r.markdown);
  console.error(`wrote ${file}`);
  process.exit(0);
}
