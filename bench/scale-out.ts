// Scale-out: the proxied read with the BFF's shared state in PostgreSQL (`DATABASE_URL` alone, as
// a replica runs) beside the same build keeping it in memory as one process does, on an
// uncoalesced load (32 signed-in people, each on a connection of their own, each reading card
// pages no one else asks for); then one BFF replica behind haproxy beside two, with where the
// machine's CPU went. One simulator, one PostgreSQL, one build for everything.
// BENCH_ROUNDS (5), BENCH_SECONDS (5) and BENCH_SEQUENTIAL (1500) size it;
// SCALE_OUT_WITHOUT_SHARED_SESSIONS=1 runs it on a build that keeps no session in PostgreSQL.
import { cpus } from 'node:os';
import { asSuperuser } from '../apps/bff/src/test/audit-cluster';
import { migrateAsOwner, prepareAuditDatabase } from '../apps/bff/src/test/engines/audit-database';
import { freePort } from '../apps/bff/src/test/engines/free-port';
import { type Balancer, startHaproxy } from '../apps/bff/src/test/engines/haproxy';
import { type PostgresEngine, startPostgres } from '../apps/bff/src/test/engines/postgres';
import { type RunningBff, startBff } from './lib/bff';
import { collectCardQueries, dealQueries } from './lib/card-queries';
import { type Child, cpuMicros, startTs } from './lib/child';
import { childPidsNamed, cpuBetween, sampleCpu, type Watched } from './lib/cpu-accounting';
import { recordLoad } from './lib/load';
import { type Person, peopleLoad, sequentialOver } from './lib/people-load';
import { postgresActivity, postgresCpuMicros } from './lib/postgres-stats';
import { type ReplicaRun, replicasMarkdown, runReplicaRounds } from './lib/scale-out-replicas';
import { fmt, fmtSpread, spread, verdict } from './lib/stats';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const SEQUENTIAL_REQUESTS = Number(process.env.BENCH_SEQUENTIAL ?? 1500);
const PEOPLE = 32;
const API_KEY = 'bench-key';

interface ReadTarget {
  name: string;
  base: string;
  /** The serving process, whose CPU per request is reported. */
  pid: number;
  people: Person[];
  /** One person reading every query in turn, for the one-connection latency. */
  one: Person;
  rps: number[];
  p50: number[];
  p99: number[];
  cpuPerRequest: number[];
  /** PostgreSQL transactions, and rows it wrote, per request (pg_stat_database). */
  transactionsPerRequest: number[];
  rowsWrittenPerRequest: number[];
  /** Cores busy with processes outside this benchmark during the load (the machine is shared). */
  othersCores: number[];
  p50One: number[];
  bad: number;
}

async function signInAll(bff: RunningBff, via?: string): Promise<string[]> {
  const cookies: string[] = [];
  for (let i = 0; i < PEOPLE; i++) cookies.push(await bff.signIn(`bench${i}@example.test`, via));
  return cookies;
}

function target(
  name: string,
  base: string,
  pid: number,
  people: Person[],
  one: Person,
): ReadTarget {
  return {
    ...{ name, base, pid, people, one },
    ...{ rps: [], p50: [], p99: [], cpuPerRequest: [], othersCores: [], p50One: [], bad: 0 },
    ...{ transactionsPerRequest: [], rowsWrittenPerRequest: [] },
  };
}

async function measureReads(
  targets: ReadTarget[],
  /** The shared database, as its superuser: its own counters say what the reads cost it. */
  database: string,
  /** Every process of this benchmark: the rest of the machine's busy time is someone else's. */
  ours: Watched[],
): Promise<void> {
  const cores = cpus().length;
  for (const t of targets) await peopleLoad({ base: t.base, people: t.people, durationSeconds: 1 });
  for (let round = 0; round < ROUNDS; round++) {
    // Each round starts one target later, so none always follows the same neighbour.
    for (let i = 0; i < targets.length; i++) {
      const t = targets[(i + round) % targets.length] as ReadTarget;
      const databaseBefore = await postgresActivity(database);
      const cpuBefore = cpuMicros(t.pid);
      const machineBefore = sampleCpu(ours);
      const r = await peopleLoad({ base: t.base, people: t.people, durationSeconds: SECONDS });
      const requests = Math.max(1, r.requests);
      t.cpuPerRequest.push((cpuMicros(t.pid) - cpuBefore) / requests);
      const databaseAfter = await postgresActivity(database);
      t.transactionsPerRequest.push(
        (databaseAfter.transactions - databaseBefore.transactions) / requests,
      );
      t.rowsWrittenPerRequest.push(
        (databaseAfter.rowsWritten - databaseBefore.rowsWritten) / requests,
      );
      recordLoad(t, r);
      t.p50One.push(
        await sequentialOver({
          base: t.base,
          paths: t.one.paths,
          requests: SEQUENTIAL_REQUESTS,
          headers: t.one.headers,
        }),
      );
      const used = cpuBetween(machineBefore, sampleCpu(ours), cores);
      t.othersCores.push(used.others / used.wall);
    }
  }
}

function readsMarkdown(targets: ReadTarget[], queries: number): string {
  const [direct, memory, withPostgres] = targets as [ReadTarget, ReadTarget, ReadTarget];
  const median = (values: number[]) => spread(values).median;
  const ratio = median(withPostgres.rps) / median(memory.rps);
  const addedPostgres = median(withPostgres.p50One) - median(direct.p50One);
  const addedMemory = median(memory.p50One) - median(direct.p50One);
  const rows = targets.map(
    (t) =>
      `| ${t.name} | ${fmtSpread(spread(t.rps), 0)} | ${fmt(median(t.p50))} / ${fmt(median(t.p99))} | ${fmtSpread(spread(t.cpuPerRequest), 0)} | ${fmt(median(t.transactionsPerRequest), 2)} | ${fmt(median(t.rowsWrittenPerRequest), 2)} | ${fmtSpread(spread(t.p50One), 3)} | ${fmt(median(t.othersCores))} | ${t.bad} |`,
  );
  return [
    `### Proxied read, sessions in PostgreSQL beside sessions in memory (${ROUNDS} interleaved rounds, each target in turn: ${SECONDS} s with ${PEOPLE} people at once, then ${SEQUENTIAL_REQUESTS} reads one after another on one connection; each round starts one target later)`,
    '',
    `Uncoalesced: ${PEOPLE} people, each signed in with a cookie of their own and on one keep-alive connection, each reading card pages of their own (${queries} distinct queries: every page of every status filter, sort and direction, with the cursor the service issued for it, dealt out so no two people share one), so no two requests in flight can share an upstream call. The one-connection figure reads every query in turn. Both BFFs are the same bundle, run as \`pnpm start\` runs it, against the same simulator process (no rate limit); the PostgreSQL one has \`DATABASE_URL\` set, as a replica does (sessions, rate limits and every other shared store in the one database), the memory one keeps them in its own process as one process without \`DATABASE_URL\` does. Each cell: median (min–max) over rounds; CPU is the serving process's only (from /proc); transactions and rows written (inserted, updated or deleted) counted by the database's own pg_stat_database over the whole database, so background work (the index sync, alert delivery) is in them too; cores busy outside the benchmark: the machine's busy time (/proc/stat) less every process of this benchmark's, while the target was measured.`,
    '',
    '| target | req/s | p50 / p99 ms | CPU µs / request | PostgreSQL transactions / request | rows written / request | p50 ms (1 conn) | cores busy outside the benchmark | non-2xx or errors |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    '| target | measured | goal | |',
    '|---|---|---|---|',
    `| req/s with PostgreSQL ÷ req/s in memory (${PEOPLE} people) | ${fmt(ratio)} | ≥ 0.8 | ${verdict(ratio >= 0.8)} |`,
    `| added p50 at 1 connection with PostgreSQL (ms over the upstream directly; in memory beside it) | ${fmt(addedPostgres, 3)} (memory: ${fmt(addedMemory, 3)}) | ≤ 0.45 | ${verdict(addedPostgres <= 0.45)} |`,
    '',
  ].join('\n');
}

export async function runScaleOutBench(): Promise<{ markdown: string }> {
  const children: Child[] = [];
  const balancers: Balancer[] = [];
  let postgres: PostgresEngine | undefined;
  try {
    const sim = await startTs('bench/lib/paged-card-service.ts', {
      env: { API_KEY },
      ready: /^READY \d+/,
    });
    children.push(sim);
    const simUrl = `http://127.0.0.1:${sim.readyLine.trim().split(' ')[1]}`;
    const queries = await collectCardQueries(simUrl, API_KEY);
    const hands = dealQueries(queries, PEOPLE);
    // The database as docs/operations/replicas.md sets it up: the roles, `pnpm migrate` as the
    // owner, and the replicas on the login that may only read and write rows.
    postgres = await startPostgres();
    const { ownerUrl, appUrl } = await prepareAuditDatabase(postgres, 'card_console');
    await migrateAsOwner(ownerUrl);
    const port = postgres.port;
    const postgresCpu = () => postgresCpuMicros(port);

    // 1. The same bundle with sessions in memory and in PostgreSQL, side by side.
    const memory = await startBff({ upstreamUrl: simUrl, apiKey: API_KEY, people: PEOPLE });
    children.push(memory.child);
    const withPostgres = await startBff({
      upstreamUrl: simUrl,
      apiKey: API_KEY,
      people: PEOPLE,
      env: { DATABASE_URL: appUrl },
      build: false,
      usersFile: memory.usersFile,
    });
    children.push(withPostgres.child);
    const memoryCookies = await signInAll(memory);
    const postgresCookies = await signInAll(withPostgres);
    const sessionsInPostgres = await storedSessions(ownerUrl);
    const dryRun = process.env.SCALE_OUT_WITHOUT_SHARED_SESSIONS === '1';
    if (sessionsInPostgres < PEOPLE && !dryRun) {
      throw new Error(
        `With DATABASE_URL set the BFF kept ${sessionsInPostgres} sessions in PostgreSQL after ${PEOPLE} sign-ins: this build does not keep its sessions there, so there is nothing to compare (SCALE_OUT_WITHOUT_SHARED_SESSIONS=1 runs it anyway, for a dry run).`,
      );
    }
    const browse = (cookie: string) => ({ cookie, 'x-csrf': '1' });
    const everyQuery = hands.flat();
    const apiPeople = (cookies: string[]): Person[] =>
      hands.map((hand, i) => ({
        headers: browse(cookies[i] as string),
        paths: hand.map((q) => q.api),
      }));
    const reads = [
      target(
        'card service directly',
        simUrl,
        sim.pid,
        hands.map((hand) => ({
          headers: { 'x-api-key': API_KEY },
          paths: hand.map((q) => q.upstream),
        })),
        { headers: { 'x-api-key': API_KEY }, paths: everyQuery.map((q) => q.upstream) },
      ),
      target('BFF, sessions in memory', memory.url, memory.child.pid, apiPeople(memoryCookies), {
        headers: browse(memoryCookies[0] as string),
        paths: everyQuery.map((q) => q.api),
      }),
      target(
        'BFF, sessions in PostgreSQL',
        withPostgres.url,
        withPostgres.child.pid,
        apiPeople(postgresCookies),
        { headers: browse(postgresCookies[0] as string), paths: everyQuery.map((q) => q.api) },
      ),
    ];
    console.error(`scale-out: ${ROUNDS} rounds of reads, memory beside PostgreSQL`);
    await measureReads(reads, ownerUrl, [
      {
        name: 'this benchmark',
        pids: [process.pid, sim.pid, memory.child.pid, withPostgres.child.pid],
      },
      { name: 'PostgreSQL', micros: postgresCpu },
    ]);
    await Promise.all([memory.stop(), withPostgres.stop()]);

    // 2. One replica behind haproxy beside two, sessions in PostgreSQL for both. Sign-in goes
    // through the two-replica balancer, whose origin is the replicas' PUBLIC_ORIGIN; reads carry
    // no Origin check, so the same cookies read through either balancer.
    const twoPort = await freePort();
    const origin = `http://127.0.0.1:${twoPort}`;
    const replicas: RunningBff[] = [];
    for (let i = 0; i < 2; i++) {
      const replica = await startBff({
        upstreamUrl: simUrl,
        apiKey: API_KEY,
        people: PEOPLE,
        env: { DATABASE_URL: appUrl, PUBLIC_ORIGIN: origin },
        build: false,
        usersFile: memory.usersFile,
      });
      children.push(replica.child);
      replicas.push(replica);
    }
    const [a, b] = replicas as [RunningBff, RunningBff];
    const portOf = (r: RunningBff) => Number(new URL(r.url).port);
    if (replicas.some((r) => portOf(r) === twoPort))
      throw new Error('a replica took the port chosen for the balancer; run again');
    const two = await startHaproxy([portOf(a), portOf(b)], twoPort, { tls: false });
    balancers.push(two);
    const twoPids = childPidsNamed('haproxy');
    const one = await startHaproxy([portOf(a)], undefined, { tls: false });
    balancers.push(one);
    const onePids = childPidsNamed('haproxy').filter((pid) => !twoPids.includes(pid));
    const cookies = await signInAll(a, two.origin);
    const people = apiPeople(cookies);
    const runs: ReplicaRun[] = [
      { name: 'one replica behind haproxy', base: one.origin, haproxyPids: onePids },
      { name: 'two replicas behind haproxy', base: two.origin, haproxyPids: twoPids },
    ];
    console.error(`scale-out: ${ROUNDS} rounds, one replica beside two`);
    const measured = await runReplicaRounds({
      runs,
      people,
      rounds: ROUNDS,
      seconds: SECONDS,
      watched: {
        replicas: [a.child.pid, b.child.pid],
        postgres: postgresCpu,
        simulator: sim.pid,
      },
    });

    const markdown = [
      readsMarkdown(reads, queries.length),
      replicasMarkdown(measured, { people: PEOPLE, seconds: SECONDS, cores: cpus().length }),
      sessionsInPostgres < PEOPLE
        ? `**This run is not a measurement of shared sessions: the BFF kept ${sessionsInPostgres} sessions in PostgreSQL with \`DATABASE_URL\` set (SCALE_OUT_WITHOUT_SHARED_SESSIONS=1).**\n`
        : '',
    ].join('\n');
    return { markdown };
  } finally {
    await Promise.all(balancers.map((b) => b.stop()));
    await Promise.all(children.map((c) => c.stop()));
    await postgres?.destroy();
  }
}

/** Live sessions the replicas keep in the database (0 when this build has no such table). */
async function storedSessions(ownerUrl: string): Promise<number> {
  const { rows: tables } = await asSuperuser<{ table: string | null }>(
    ownerUrl,
    "SELECT to_regclass('session_record')::text AS table",
  );
  if (!tables[0]?.table) return 0;
  const { rows } = await asSuperuser<{ count: string }>(
    ownerUrl,
    'SELECT count(*) AS count FROM session_record WHERE expires_at > now()',
  );
  return Number(rows[0]?.count ?? 0);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { markdown } = await runScaleOutBench();
  console.log(markdown);
}
