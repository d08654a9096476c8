// The audit trail in PostgreSQL: how long an append takes (alone, and with 8 appenders on two
// pools as two replicas would have), and how long the audit screen waits for a page over one
// million records, for every filter it offers, alone and combined, first page and deep.
// A throw-away cluster (apps/bff/src/test/engines/postgres.ts); appends are measured with its
// own settings and made durable (fsync, full_page_writes, synchronous_commit on) as in production.
import { closeSync, fsyncSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuditFilter } from '@card-console/shared/api/audit';
import type { NewAuditRecord } from '../apps/bff/src/platform/audit/audit-store';
import {
  connectPostgresAudit,
  type PostgresAudit,
} from '../apps/bff/src/platform/audit/postgres-audit';
import { listQuery } from '../apps/bff/src/platform/audit/postgres-audit-store';
import { asSuperuser, auditTestCluster, silentLogger } from '../apps/bff/src/test/audit-cluster';
import { fmt, fmtSpread, spread, verdict } from './lib/stats';

const RECORDS = Number(process.env.BENCH_AUDIT_RECORDS ?? 1_000_000);
const APPENDS = Number(process.env.BENCH_AUDIT_APPENDS ?? 1_000);
const APPEND_ROUNDS = Number(process.env.BENCH_AUDIT_APPEND_ROUNDS ?? 3);
const QUERY_ROUNDS = Number(process.env.BENCH_AUDIT_ROUNDS ?? 30);
const PAGE = 50;
const ACTORS = 2_000;
const CARDS = 50_000;
/** Records span the last year, oldest first: about one every 31 s at a million. */
const SPAN_MS = 365 * 24 * 3600 * 1000;
const QUERY_GOAL_MS = 20;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

async function timed<T>(run: () => Promise<T>): Promise<number> {
  const started = process.hrtime.bigint();
  await run();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

/** A deterministic uniform draw in [0, 1) for record `n` and draw `k` (mulberry32). */
function draw(n: number, k: number): number {
  let t = (Math.imul(n, 0x9e3779b1) + Math.imul(k + 1, 0x85ebca6b)) >>> 0;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
}

/** The n-th appended record, drawn from the same mix as the filled ones (see fillSql). */
function appendRecord(n: number): NewAuditRecord {
  const person = Math.floor(ACTORS * draw(n, 2) ** 3);
  const admin = person % 10 < 3;
  const r = draw(n, 0);
  const o = draw(n, 1);
  const action: NewAuditRecord['action'] = admin
    ? r < 0.4
      ? 'session.signIn'
      : r < 0.5
        ? 'session.signOut'
        : r < 0.52
          ? 'session.ended'
          : r < 0.82
            ? 'card.reveal'
            : r < 0.96
              ? 'card.update'
              : r < 0.98
                ? 'access.denied'
                : 'subAccount.create'
    : r < 0.6
      ? 'session.signIn'
      : r < 0.8
        ? 'session.signOut'
        : r < 0.85
          ? 'session.ended'
          : 'access.denied';
  const onCard = action === 'card.reveal' || action === 'card.update' || action === 'access.denied';
  return {
    actor: `person${person}@example.com`,
    role: admin ? 'admin' : 'finance',
    action,
    outcome:
      action === 'access.denied' ? 'denied' : o < 0.93 ? 'success' : o < 0.98 ? 'denied' : 'failed',
    ...(onCard ? { cardId: `card_${Math.floor(CARDS * draw(n, 3) ** 2)}` } : {}),
    ...(action === 'card.reveal'
      ? {
          last4: String(n % 10_000).padStart(4, '0'),
          reason: 'customer called about a declined payment',
        }
      : {}),
    requestId: `bench-${n}-0f6c2a1e-5a4b-4c7e-9d3f-1b2c3d4e5f60`,
  };
}

/** `appenders` loops appending at once, spread over `stores`, each append timed. */
async function appendLatencies(stores: PostgresAudit[], appenders: number, total: number) {
  const samples: number[] = [];
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: appenders }, async (_, a) => {
      const store = (stores[a % stores.length] as PostgresAudit).store;
      while (next < total) {
        const n = next++;
        samples.push(await timed(() => store.append(appendRecord(n))));
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { p50: percentile(samples, 50), p99: percentile(samples, 99), perSecond: total / seconds };
}

type AppendFigures = Awaited<ReturnType<typeof appendLatencies>>;
type AppendRound = { alone: AppendFigures; eight: AppendFigures };

/** Median (min–max) over the rounds of one figure. */
function acrossRounds(rounds: AppendRound[], pick: (r: AppendRound) => number, digits = 2): string {
  return fmtSpread(spread(rounds.map(pick)), digits);
}

/** fsync, full-page writes and synchronous commit on (as in production) or off (the test default). */
async function setDurable(url: string, on: boolean): Promise<void> {
  const value = on ? 'on' : 'off';
  // One statement each: ALTER SYSTEM refuses to run inside a (multi-statement) transaction.
  for (const setting of ['fsync', 'full_page_writes', 'synchronous_commit']) {
    await asSuperuser(url, `ALTER SYSTEM SET ${setting} = ${value}`);
  }
  await asSuperuser(url, 'SELECT pg_reload_conf()');
}

/**
 * A year of records, as many people and cards as a card program has: a few busy people and a
 * long tail (person number u³-skewed over 2,000; numbers ending in 0-2 are admins, the rest
 * finance staff), popular and rarely touched cards (u²-skewed over 50,000). Admins sign in
 * (40 %), reveal (30 %), change limits (14 %), sign out, create sub accounts, now and then are
 * denied; finance staff sign in and out and are denied when they try a reveal (15 %). Of the
 * rest, 93 % succeed, 5 % are denied, 2 % fail. Hashes are placeholders: the chain is not what
 * a query reads, and computing a million links would only slow the fill.
 */
export function fillSql(records: number): string {
  return `SELECT setseed(0.42);
  INSERT INTO audit_record (id, at, actor, role, action, outcome, card_id, last4, reason, request_id, prev_hash, hash)
  SELECT i,
    date_trunc('milliseconds', now() - interval '1 millisecond' * (${SPAN_MS}::float8 * (${records} - i) / ${records})),
    'person' || person || '@example.com',
    role,
    action,
    CASE WHEN action = 'access.denied' THEN 'denied'
      WHEN o < 0.93 THEN 'success' WHEN o < 0.98 THEN 'denied' ELSE 'failed' END,
    CASE WHEN action IN ('card.reveal', 'card.update', 'access.denied')
      THEN 'card_' || floor(${CARDS} * power(c, 2))::int END,
    CASE WHEN action = 'card.reveal' THEN lpad((i % 10000)::text, 4, '0') END,
    CASE WHEN action = 'card.reveal' THEN 'customer called about a declined payment' END,
    md5(i::text), repeat('0', 64), repeat('0', 64)
  -- random() in the select list of the series: fresh draws for every row.
  FROM (SELECT i, floor(${ACTORS} * power(random(), 3))::int AS person,
          random() AS r, random() AS o, random() AS c
        FROM generate_series(1, ${records}) AS i) AS g,
    LATERAL (SELECT CASE WHEN person % 10 < 3 THEN 'admin' ELSE 'finance' END AS role) AS who,
    LATERAL (SELECT CASE WHEN role = 'admin' THEN CASE
        WHEN r < 0.40 THEN 'session.signIn' WHEN r < 0.50 THEN 'session.signOut'
        WHEN r < 0.52 THEN 'session.ended' WHEN r < 0.82 THEN 'card.reveal'
        WHEN r < 0.96 THEN 'card.update' WHEN r < 0.98 THEN 'access.denied'
        ELSE 'subAccount.create' END
      ELSE CASE
        WHEN r < 0.60 THEN 'session.signIn' WHEN r < 0.80 THEN 'session.signOut'
        WHEN r < 0.85 THEN 'session.ended' ELSE 'access.denied' END
      END AS action) AS what`;
}

interface Case {
  name: string;
  filter: AuditFilter;
}

export async function runAuditStoreBench(): Promise<{ markdown: string }> {
  const cluster = await auditTestCluster({ own: true });
  const replicas: PostgresAudit[] = [];
  try {
    const db = await cluster.fresh();
    const fillStarted = Date.now();
    await asSuperuser(db.ownerUrl, fillSql(RECORDS));
    await asSuperuser(db.ownerUrl, 'VACUUM ANALYZE audit_record');
    const fillSeconds = (Date.now() - fillStarted) / 1000;
    const { rows: sizes } = await asSuperuser<{ table: string; indexes: string; count: number }>(
      db.ownerUrl,
      `SELECT pg_size_pretty(pg_table_size('audit_record')) AS table,
        pg_size_pretty(pg_indexes_size('audit_record')) AS indexes,
        (SELECT count(*)::int FROM pg_indexes WHERE tablename = 'audit_record') AS count`,
    );

    // Two replicas, each with its pool, as the BFF's own login.
    for (let i = 0; i < 2; i++) {
      replicas.push(
        await connectPostgresAudit({ url: db.bffUrl, logger: silentLogger, poolSize: 4 }),
      );
    }
    const [first] = replicas as [PostgresAudit];
    await appendLatencies([first], 1, 200); // warm-up: connections, plans, caches
    // The throw-away cluster's own settings (no flush to disk) and durable ones, interleaved
    // round by round: the difference is what waiting for the disk costs each append (and every
    // append queued behind it).
    const figures = { false: [] as AppendRound[], true: [] as AppendRound[] };
    for (let round = 0; round < APPEND_ROUNDS; round++) {
      for (const durable of [false, true] as const) {
        await setDurable(db.ownerUrl, durable);
        figures[`${durable}`].push({
          alone: await appendLatencies([first], 1, APPENDS),
          eight: await appendLatencies(replicas, 8, APPENDS * 2),
        });
      }
    }

    // Values the screen would be asked for, chosen from the data: the busiest person (an admin),
    // the busiest finance person, the most touched card, and a typical (median-activity) person
    // and card.
    const pick = async (column: string, rank: 'busiest' | 'typical', where = 'true') => {
      const { rows } = await asSuperuser<{ value: string }>(
        db.ownerUrl,
        `SELECT ${column} AS value FROM (
           SELECT ${column}, count(*) AS n FROM audit_record WHERE ${column} IS NOT NULL AND ${where}
           GROUP BY ${column} ORDER BY n DESC) AS ranked
         ${rank === 'busiest' ? 'LIMIT 1' : `OFFSET (SELECT count(DISTINCT ${column}) / 2 FROM audit_record) LIMIT 1`}`,
      );
      return rows[0]?.value ?? '';
    };
    const busiest = await pick('actor', 'busiest');
    const busiestFinance = await pick('actor', 'busiest', "role = 'finance'");
    const typical = await pick('actor', 'typical');
    const hotCard = await pick('card_id', 'busiest');
    const card = await pick('card_id', 'typical');
    const now = Date.now();
    const day = 24 * 3600 * 1000;
    const midYear = now - 180 * day;
    const cases: Case[] = [
      { name: 'no filter', filter: {} },
      { name: 'actor: the busiest person', filter: { actor: busiest } },
      { name: 'actor: a typical person', filter: { actor: typical } },
      { name: 'action: card.reveal', filter: { action: 'card.reveal' } },
      { name: 'action: subAccount.create (rare)', filter: { action: 'subAccount.create' } },
      { name: 'outcome: denied', filter: { outcome: 'denied' } },
      { name: 'outcome: failed', filter: { outcome: 'failed' } },
      { name: 'card: the most touched card', filter: { cardId: hotCard } },
      { name: 'card: a typical card', filter: { cardId: card } },
      { name: 'time: the last 24 hours', filter: { from: now - day, to: now } },
      { name: 'time: one day six months ago', filter: { from: midYear, to: midYear + day } },
      { name: 'time: since 30 days ago', filter: { from: now - 30 * day } },
      { name: 'time: until six months ago', filter: { to: midYear } },
      {
        name: 'action + outcome: denied reveals',
        filter: { action: 'card.reveal', outcome: 'denied' },
      },
      {
        name: 'action + outcome: failed sub-account creations',
        filter: { action: 'subAccount.create', outcome: 'failed' },
      },
      {
        name: 'actor + action: the busiest person’s reveals',
        filter: { actor: busiest, action: 'card.reveal' },
      },
      {
        name: 'actor + outcome: the busiest person’s failures',
        filter: { actor: busiest, outcome: 'failed' },
      },
      {
        name: 'actor + time: a typical person, last 30 days',
        filter: { actor: typical, from: now - 30 * day, to: now },
      },
      {
        name: 'card + action: the most touched card’s limit changes',
        filter: { cardId: hotCard, action: 'card.update' },
      },
      {
        name: 'actor + card: the busiest person on the most touched card',
        filter: { actor: busiest, cardId: hotCard },
      },
      {
        name: 'actor + action + outcome + time: the busiest person’s denied reveals, one month',
        filter: {
          actor: busiest,
          action: 'card.reveal',
          outcome: 'denied',
          from: midYear,
          to: midYear + 30 * day,
        },
      },
      {
        name: 'actor + card + action: a combination with no records (sign-ins have no card)',
        filter: { actor: busiest, cardId: hotCard, action: 'session.signIn' },
      },
      {
        name: 'actor + action: the busiest finance person’s reveals (none: finance staff cannot reveal)',
        filter: { actor: busiestFinance, action: 'card.reveal' },
      },
      {
        name: 'actor + card: the busiest finance person on the most touched card',
        filter: { actor: busiestFinance, cardId: hotCard },
      },
      { name: 'actor: nobody (no records)', filter: { actor: 'nobody@example.com' } },
    ];

    const rows: string[] = [];
    let worst = 0;
    for (const c of cases) {
      const cells: string[] = [];
      for (const cursor of [undefined, await middleId(db.ownerUrl, c.filter)]) {
        const list = () =>
          first.store.list({ limit: PAGE, filter: c.filter, ...(cursor ? { cursor } : {}) });
        const found = (await list()).items.length;
        for (let i = 0; i < 3; i++) await list();
        const samples: number[] = [];
        for (let i = 0; i < QUERY_ROUNDS; i++) samples.push(await timed(list));
        const p50 = percentile(samples, 50);
        worst = Math.max(worst, p50);
        cells.push(`${fmt(p50, 2)} / ${fmt(percentile(samples, 95), 2)} (${found})`);
      }
      rows.push(`| ${c.name} | ${cells.join(' | ')} |`);
    }

    const appendRows = (['false', 'true'] as const).flatMap((on) =>
      (['alone', 'eight'] as const).map((who) => {
        const rounds = figures[on];
        return `| ${on === 'true' ? 'durable (production)' : 'no flush to disk (test cluster)'} | ${who === 'alone' ? '1' : '8, on two pools (two replicas)'} | ${acrossRounds(rounds, (r) => r[who].p50)} | ${acrossRounds(rounds, (r) => r[who].p99)} | ${acrossRounds(rounds, (r) => r[who].perSecond, 0)} |`;
      }),
    );
    const durableP = (who: 'alone' | 'eight', p: 'p50' | 'p99') =>
      fmt(spread(figures.true.map((r) => r[who][p])).median);
    const flush = diskFlushMs();
    const markdown = [
      `A throw-away PostgreSQL ${await serverVersion(db.ownerUrl)} cluster on this machine. ${RECORDS.toLocaleString('en-US')} records filled as the schema owner with generate_series (${fmt(fillSeconds, 0)} s with every index in place): a year of activity, ${ACTORS.toLocaleString('en-US')} people (a few busy, a long tail), ${CARDS.toLocaleString('en-US')} cards (some touched often, most rarely); people whose number ends in 0-2 are admins, the rest finance staff, who cannot reveal or change anything (their attempts are denied). Actions: ${await shares(db.ownerUrl, 'action')}; outcomes: ${await shares(db.ownerUrl, 'outcome')}. On disk: the table ${sizes[0]?.table}, its ${sizes[0]?.count} indexes (one per filter and the combinations that need one, apps/bff/migrations) ${sizes[0]?.indexes}. The filled records carry placeholder hashes: no query reads the chain, and computing a million links would only slow the fill; the appends below chain onto them as the BFF does.`,
      '',
      `**Appends** through the BFF's store (\`PostgresAuditStore.append\`: advisory lock, head read, RFC 8785 canonical JSON, SHA-256, insert, commit), as the BFF's login, on top of the ${RECORDS.toLocaleString('en-US')} records: ${APPENDS.toLocaleString('en-US')} appends one at a time, then ${(APPENDS * 2).toLocaleString('en-US')} by 8 appenders at once, with the throw-away cluster's settings (fsync, full_page_writes, synchronous_commit off) and durable as in production, interleaved over ${APPEND_ROUNDS} rounds; each cell is the median (min–max) of the rounds. Appends are serialised: the lock is held from the head read until the commit is on disk (three round trips, the hashing and the flush), so with 8 appenders each waits for the ones ahead of it, and the trail takes one append per lock hold, from all replicas together. This machine's disk flushes (8 KiB write + fsync, in its temp directory) in ${fmt(flush.p50)} ms p50, ${fmt(flush.p99)} ms p99. Both "replicas" run in this one process, so their hashing shares one thread, and PostgreSQL shares the machine's 2 cores with them.`,
      '',
      '| settings | appenders | p50 ms | p99 ms | appends/s |',
      '|---|---|---|---|---|',
      ...appendRows,
      '',
      `**Audit screen pages** (\`PostgresAuditStore.list\`, ${PAGE} records newest first, the query the BFF sends, as its login): p50 / p95 ms over ${QUERY_ROUNDS} runs after 3 warm-ups, and how many records the page held. "Deep" is the page after the record halfway between the newest and the oldest the filter matches (for the broad filters, thousands of pages in; a keyset cursor is an index bound, so depth itself costs nothing); a filter matching fewer than two records is measured on its first page twice.`,
      '',
      '| filter | first page: p50 / p95 ms (records) | deep page: p50 / p95 ms (records) |',
      '|---|---|---|',
      ...rows,
      '',
      '| target | measured | goal | |',
      '|---|---|---|---|',
      `| audit insert p50 / p99, durable, 1 appender (ms, median of the rounds) | ${durableP('alone', 'p50')} / ${durableP('alone', 'p99')} | reported | |`,
      `| audit insert p50 / p99, durable, 8 appenders on two replicas (ms, median of the rounds) | ${durableP('eight', 'p50')} / ${durableP('eight', 'p99')} | reported | |`,
      `| audit screen page p50 over ${RECORDS.toLocaleString('en-US')} records, worst of ${cases.length} filters × first and deep page (ms) | ${fmt(worst)} | ≤ ${QUERY_GOAL_MS} | ${verdict(worst <= QUERY_GOAL_MS)} |`,
    ].join('\n');
    return { markdown };
  } finally {
    await Promise.all(replicas.map((r) => r.close()));
    await cluster.stop();
  }
}

/** How long this machine's temp disk takes to write and flush 8 KiB: what a durable commit waits for. */
function diskFlushMs(): { p50: number; p99: number } {
  const dir = mkdtempSync(join(tmpdir(), 'cc-flush-'));
  const fd = openSync(join(dir, 'probe'), 'w');
  const block = Buffer.alloc(8192, 1);
  const samples: number[] = [];
  try {
    for (let i = 0; i < 300; i++) {
      const started = process.hrtime.bigint();
      writeSync(fd, block, 0, block.length, (i % 64) * block.length);
      fsyncSync(fd);
      samples.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
  } finally {
    closeSync(fd);
    rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
  }
  return { p50: percentile(samples, 50), p99: percentile(samples, 99) };
}

/**
 * A deep page's cursor: the id halfway between the newest and the oldest record the filter
 * matches (thousands of pages in for the broad filters), or undefined when fewer than two do.
 */
async function middleId(url: string, filter: AuditFilter): Promise<string | undefined> {
  const { text, values } = listQuery({ limit: 2 ** 31 - 2, filter });
  const { rows } = await asSuperuser<{ lo: string | null; hi: string | null }>(
    url,
    `SELECT min(id) AS lo, max(id) AS hi FROM (${text}) AS matched`,
    values,
  );
  const lo = Number(rows[0]?.lo);
  const hi = Number(rows[0]?.hi);
  return hi > lo ? String(Math.floor((lo + hi) / 2)) : undefined;
}

/** How the records divide by `column`, largest share first: "card.reveal 25 %, …". */
async function shares(url: string, column: 'action' | 'outcome'): Promise<string> {
  const { rows } = await asSuperuser<{ value: string; share: number }>(
    url,
    `SELECT ${column} AS value, 100.0 * count(*) / sum(count(*)) OVER () AS share
     FROM audit_record GROUP BY 1 ORDER BY 2 DESC`,
  );
  return rows.map((r) => `${r.value} ${fmt(Number(r.share), 1)} %`).join(', ');
}

async function serverVersion(url: string): Promise<string> {
  const { rows } = await asSuperuser<{ v: string }>(
    url,
    "SELECT current_setting('server_version') AS v",
  );
  return rows[0]?.v ?? '';
}
