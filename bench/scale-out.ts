// Scale-out: the proxied read with the BFF's shared state in Redis beside the same build with
// it in memory, on an uncoalesced load (32 signed-in people, each on a connection of their own,
// each reading card pages no one else asks for); then one BFF replica behind haproxy beside
// two, with where the machine's CPU went. One simulator, one Redis, one build for everything.
import { cpus } from 'node:os';
import { freePort } from '../apps/bff/src/test/engines/free-port';
import { type Balancer, startHaproxy } from '../apps/bff/src/test/engines/haproxy';
import { type RedisEngine, startRedis } from '../apps/bff/src/test/engines/redis';
import { type RunningBff, startBff } from './lib/bff';
import { collectCardQueries, dealQueries } from './lib/card-queries';
import { type Child, cpuMicros, startTs } from './lib/child';
import { childPidsNamed, cpuBetween, sampleCpu, type Watched } from './lib/cpu-accounting';
import { recordLoad } from './lib/load';
import { type Person, peopleLoad, sequentialOver } from './lib/people-load';
import { redisCommandsProcessed, redisKeyCount } from './lib/redis-stats';
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
  redisPerRequest: number[];
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
    ...{ rps: [], p50: [], p99: [], cpuPerRequest: [], redisPerRequest: [], othersCores: [] },
    ...{ p50One: [], bad: 0 },
  };
}

async function measureReads(
  targets: ReadTarget[],
  redis: RedisEngine,
  /** Every process of this benchmark: the rest of the machine's busy time is someone else's. */
  ours: Watched[],
): Promise<void> {
  const cores = cpus().length;
  for (const t of targets) await peopleLoad({ base: t.base, people: t.people, durationSeconds: 1 });
  for (let round = 0; round < ROUNDS; round++) {
    // Each round starts one target later, so none always follows the same neighbour.
    for (let i = 0; i < targets.length; i++) {
      const t = targets[(i + round) % targets.length] as ReadTarget;
      const cpuBefore = cpuMicros(t.pid);
      const redisBefore = redisCommandsProcessed(redis.port);
      const machineBefore = sampleCpu(ours);
      const r = await peopleLoad({ base: t.base, people: t.people, durationSeconds: SECONDS });
      const requests = Math.max(1, r.requests);
      t.cpuPerRequest.push((cpuMicros(t.pid) - cpuBefore) / requests);
      t.redisPerRequest.push((redisCommandsProcessed(redis.port) - redisBefore) / requests);
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
  const [direct, memory, withRedis] = targets as [ReadTarget, ReadTarget, ReadTarget];
  const median = (values: number[]) => spread(values).median;
  const ratio = median(withRedis.rps) / median(memory.rps);
  const addedRedis = median(withRedis.p50One) - median(direct.p50One);
  const addedMemory = median(memory.p50One) - median(direct.p50One);
  const rows = targets.map(
    (t) =>
      `| ${t.name} | ${fmtSpread(spread(t.rps), 0)} | ${fmt(median(t.p50))} / ${fmt(median(t.p99))} | ${fmtSpread(spread(t.cpuPerRequest), 0)} | ${fmt(median(t.redisPerRequest), 2)} | ${fmtSpread(spread(t.p50One), 3)} | ${fmt(median(t.othersCores))} | ${t.bad} |`,
  );
  return [
    `### Proxied read, sessions in Redis beside sessions in memory (${ROUNDS} interleaved rounds, each target in turn: ${SECONDS} s with ${PEOPLE} people at once, then ${SEQUENTIAL_REQUESTS} reads one after another on one connection; each round starts one target later)`,
    '',
    `Uncoalesced: ${PEOPLE} people, each signed in with a cookie of their own and on one keep-alive connection, each reading card pages of their own (${queries} distinct queries: every page of every status filter, sort and direction, with the cursor the service issued for it, dealt out so no two people share one), so no two requests in flight can share an upstream call. The one-connection figure reads every query in turn. Both BFFs are the same bundle, run as \`pnpm start\` runs it, against the same simulator process (no rate limit); the Redis one has \`REDIS_URL\` set. Each cell: median (min–max) over rounds; CPU is the serving process's only (from /proc); Redis commands counted by the server's own INFO (MULTI and EXEC count as commands); cores busy outside the benchmark: the machine's busy time (/proc/stat) less every process of this benchmark's, while the target was measured.`,
    '',
    '| target | req/s | p50 / p99 ms | CPU µs / request | Redis commands / request | p50 ms (1 conn) | cores busy outside the benchmark | non-2xx or errors |',
    '|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    '| target | measured | goal | |',
    '|---|---|---|---|',
    `| req/s with Redis ÷ req/s in memory (${PEOPLE} people) | ${fmt(ratio)} | ≥ 0.8 | ${verdict(ratio >= 0.8)} |`,
    `| added p50 at 1 connection with Redis (ms over the upstream directly; in memory beside it) | ${fmt(addedRedis, 3)} (memory: ${fmt(addedMemory, 3)}) | ≤ 0.45 | ${verdict(addedRedis <= 0.45)} |`,
    '',
  ].join('\n');
}

export async function runScaleOutBench(): Promise<{ markdown: string }> {
  const children: Child[] = [];
  const balancers: Balancer[] = [];
  let redis: RedisEngine | undefined;
  try {
    const sim = await startTs('bench/lib/paged-card-service.ts', {
      env: { API_KEY },
      ready: /^READY \d+/,
    });
    children.push(sim);
    const simUrl = `http://127.0.0.1:${sim.readyLine.trim().split(' ')[1]}`;
    const queries = await collectCardQueries(simUrl, API_KEY);
    const hands = dealQueries(queries, PEOPLE);
    redis = await startRedis();
    const redisPids = childPidsNamed('redis-server');

    // 1. The same bundle with sessions in memory and in Redis, side by side.
    const memory = await startBff({ upstreamUrl: simUrl, apiKey: API_KEY, people: PEOPLE });
    children.push(memory.child);
    const withRedis = await startBff({
      upstreamUrl: simUrl,
      apiKey: API_KEY,
      people: PEOPLE,
      env: { REDIS_URL: redis.url },
      build: false,
      usersFile: memory.usersFile,
    });
    children.push(withRedis.child);
    const memoryCookies = await signInAll(memory);
    const redisCookies = await signInAll(withRedis);
    const redisKeys = redisKeyCount(redis.port);
    if (redisKeys === 0 && process.env.SCALE_OUT_WITHOUT_REDIS !== '1') {
      throw new Error(
        'With REDIS_URL set the BFF kept nothing in Redis after 32 sign-ins: this build does not use Redis, so there is nothing to compare (SCALE_OUT_WITHOUT_REDIS=1 runs it anyway, for a dry run).',
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
        'BFF, sessions in Redis',
        withRedis.url,
        withRedis.child.pid,
        apiPeople(redisCookies),
        { headers: browse(redisCookies[0] as string), paths: everyQuery.map((q) => q.api) },
      ),
    ];
    console.error(`scale-out: ${ROUNDS} rounds of reads, memory beside Redis`);
    await measureReads(reads, redis, [
      {
        name: 'this benchmark',
        pids: [process.pid, sim.pid, memory.child.pid, withRedis.child.pid, ...redisPids],
      },
    ]);
    await Promise.all([memory.stop(), withRedis.stop()]);

    // 2. One replica behind haproxy beside two, sessions in Redis for both. Sign-in goes through
    // the two-replica balancer, whose origin is the replicas' PUBLIC_ORIGIN; reads carry no
    // Origin check, so the same cookies read through either balancer.
    const twoPort = await freePort();
    const origin = `http://127.0.0.1:${twoPort}`;
    const replicas: RunningBff[] = [];
    for (let i = 0; i < 2; i++) {
      const replica = await startBff({
        upstreamUrl: simUrl,
        apiKey: API_KEY,
        people: PEOPLE,
        env: { REDIS_URL: redis.url, PUBLIC_ORIGIN: origin },
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
        redis: redisPids,
        simulator: sim.pid,
      },
    });

    const markdown = [
      readsMarkdown(reads, queries.length),
      replicasMarkdown(measured, { people: PEOPLE, seconds: SECONDS, cores: cpus().length }),
      redisKeys === 0
        ? '**This run is not a measurement of Redis: the BFF kept nothing in Redis with `REDIS_URL` set (SCALE_OUT_WITHOUT_REDIS=1).**\n'
        : '',
    ].join('\n');
    return { markdown };
  } finally {
    await Promise.all(balancers.map((b) => b.stop()));
    await Promise.all(children.map((c) => c.stop()));
    await redis?.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { markdown } = await runScaleOutBench();
  console.log(markdown);
}
