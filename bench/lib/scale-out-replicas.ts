// One BFF replica behind haproxy beside two, the same people reading: requests a second and
// where every core's time went (each process from /proc/<pid>/stat, the machine from /proc/stat).
import { cpus } from 'node:os';
import { cpuBetween, sampleCpu, type Watched } from './cpu-accounting';
import { type Person, peopleLoad } from './people-load';
import { fmt, fmtSpread, spread } from './stats';

export interface ReplicaRun {
  name: string;
  base: string;
  haproxyPids: number[];
}

export interface ReplicaResult extends ReplicaRun {
  rps: number[];
  p50: number[];
  p99: number[];
  bad: number;
  /** Per round: each process's CPU µs per request, and cores busy (CPU time ÷ wall time). */
  cpu: { perRequest: Record<string, number>; cores: Record<string, number> }[];
}

/** The rows of the CPU table, in the order a request passes through them. */
const processes = [
  'load generator (this benchmark)',
  'haproxy',
  'BFF replica 1',
  'BFF replica 2',
  'PostgreSQL',
  'card service (simulator)',
  'other processes on the machine',
  'stolen by the hypervisor',
  'idle',
] as const;

export async function runReplicaRounds(options: {
  runs: ReplicaRun[];
  people: Person[];
  rounds: number;
  seconds: number;
  watched: { replicas: [number, number]; postgres: () => number; simulator: number };
}): Promise<ReplicaResult[]> {
  const results: ReplicaResult[] = options.runs.map((r) => ({
    ...r,
    ...{ rps: [], p50: [], p99: [], bad: 0, cpu: [] },
  }));
  const { watched } = options;
  for (const r of results)
    await peopleLoad({ base: r.base, people: options.people, durationSeconds: 1 });
  const cores = cpus().length;
  for (let round = 0; round < options.rounds; round++) {
    for (let i = 0; i < results.length; i++) {
      const r = results[(i + round) % results.length] as ReplicaResult;
      const list: Watched[] = [
        { name: 'load generator (this benchmark)', pids: [process.pid] },
        { name: 'haproxy', pids: r.haproxyPids },
        { name: 'BFF replica 1', pids: [watched.replicas[0]] },
        { name: 'BFF replica 2', pids: [watched.replicas[1]] },
        { name: 'PostgreSQL', micros: watched.postgres },
        { name: 'card service (simulator)', pids: [watched.simulator] },
      ];
      const before = sampleCpu(list);
      const load = await peopleLoad({
        base: r.base,
        people: options.people,
        durationSeconds: options.seconds,
      });
      const used = cpuBetween(before, sampleCpu(list), cores);
      r.rps.push(load.requestsPerSecond);
      r.p50.push(load.p50Ms);
      r.p99.push(load.p99Ms);
      r.bad += load.non2xx + load.errors;
      const all: Record<string, number> = {
        ...used.byName,
        'other processes on the machine': used.others,
        'stolen by the hypervisor': used.steal,
        idle: used.idle,
      };
      const perRequest: Record<string, number> = {};
      const coresBusy: Record<string, number> = {};
      for (const [name, micros] of Object.entries(all)) {
        perRequest[name] = micros / Math.max(1, load.requests);
        coresBusy[name] = micros / used.wall;
      }
      r.cpu.push({ perRequest, cores: coresBusy });
    }
  }
  return results;
}

const median = (values: number[]) => spread(values).median;

export function replicasMarkdown(
  results: ReplicaResult[],
  context: { people: number; seconds: number; cores: number },
): string {
  const [one, two] = results as [ReplicaResult, ReplicaResult];
  const ratio = median(two.rps) / median(one.rps);
  const cell = (r: ReplicaResult, name: string) =>
    `${fmt(median(r.cpu.map((c) => c.perRequest[name] ?? 0)), 0)} | ${fmt(median(r.cpu.map((c) => c.cores[name] ?? 0)), 2)}`;
  const coresOf = (r: ReplicaResult, name: string) => median(r.cpu.map((c) => c.cores[name] ?? 0));
  const perRequest = (r: ReplicaResult, name: string) =>
    median(r.cpu.map((c) => c.perRequest[name] ?? 0));
  const ours = (r: ReplicaResult) =>
    processes.slice(0, 6).reduce((sum, name) => sum + perRequest(r, name), 0);
  const bffs = (r: ReplicaResult) =>
    perRequest(r, 'BFF replica 1') + perRequest(r, 'BFF replica 2');
  const rest = (r: ReplicaResult) => ours(r) - bffs(r);
  const path = processes.slice(0, 6);
  /** Cores the path's processes kept busy, and reads served per CPU-second they used. */
  const pathCores = (r: ReplicaResult) =>
    median(r.cpu.map((c) => path.reduce((sum, name) => sum + (c.cores[name] ?? 0), 0)));
  const perCpuSecond = (r: ReplicaResult) =>
    median(r.cpu.map((c) => 1e6 / path.reduce((sum, name) => sum + (c.perRequest[name] ?? 0), 0)));
  const efficiency = perCpuSecond(two) / perCpuSecond(one);
  const idle = (r: ReplicaResult) => coresOf(r, 'idle');
  const others = (r: ReplicaResult) => coresOf(r, 'other processes on the machine');
  const explanation = [
    `Two replicas served ${fmt(ratio)}× the requests of one, on ${context.cores} cores that the load generator, haproxy, PostgreSQL, the card service and the replicas all share.`,
    `A second replica makes no read cheaper: per CPU-second the path's processes used, they served ${fmt(perCpuSecond(one), 0)} reads with one replica and ${fmt(perCpuSecond(two), 0)} with two (${fmt(efficiency)}×).`,
    `Per read, the replicas took ${fmt(bffs(one), 0)} µs of CPU with one and ${fmt(bffs(two), 0)} µs with two, everything else in the path ${fmt(rest(one), 0)} and ${fmt(rest(two), 0)} µs: the BFF is ${fmt((100 * bffs(one)) / ours(one), 0)} % of a read's cost here, so even a core of its own per replica could not double the whole.`,
    `More reads can only come from more CPU: the path's processes kept ${fmt(pathCores(one), 2)} cores busy with one replica (the replica itself ${fmt(coresOf(one, 'BFF replica 1'), 2)}: a Node process runs its JavaScript on one core) and ${fmt(pathCores(two), 2)} with two.`,
    pathCores(two) - pathCores(one) > 0.05
      ? `The extra ${fmt(pathCores(two) - pathCores(one), 2)} cores came from idle time (${fmt(idle(one), 2)} idle cores with one replica, ${fmt(idle(two), 2)} with two) and from the processes outside this benchmark (${fmt(others(one), 2)} cores with one replica, ${fmt(others(two), 2)} with two).`
      : `The path got no more with two: the machine had ${fmt(idle(one), 2)} idle cores with one replica, and the processes outside this benchmark kept ${fmt(others(one), 2)} and ${fmt(others(two), 2)} cores.`,
    ratio <= 1.05
      ? `With no idle core to use, the second replica only takes turns with the first on the same cores${efficiency < 0.97 ? ', and two processes (two event loops, two connection pools to the card service and to PostgreSQL, two sets of health checks) make each read dearer' : ''}.`
      : others(one) - others(two) > 0.05
        ? 'Linux shares the cores among runnable threads, so a benchmark with more busy processes takes a larger share of a shared machine from its neighbours: that part of the gain is taken, not scaled.'
        : 'The neighbours kept about their share, so the gain is what idle time allowed.',
    'Where the balancer, PostgreSQL, the card service and the people run elsewhere, each replica brings its own core and the ratio is what the replicas alone allow; on this machine it cannot be shown.',
  ].join(' ');
  return [
    `### One replica behind haproxy beside two (${results[0]?.rps.length ?? 0} interleaved rounds of ${context.seconds} s, ${context.people} people, sessions in PostgreSQL for both)`,
    '',
    "The same people, cookies and distinct queries as above, through Debian's haproxy (plain HTTP/1.1 on loopback, round-robin, `/readyz` health checks: TLS would add the balancer's and the client's handshake and cipher work to both rows alike) to one replica, or to two replicas of the same bundle sharing the one PostgreSQL database (`DATABASE_URL` alone). Each cell: median (min–max) over rounds.",
    '',
    '| setup | req/s | p50 / p99 ms | cores busy in the path | reads per CPU-second of the path | non-2xx or errors |',
    '|---|---|---|---|---|---|',
    ...results.map(
      (r) =>
        `| ${r.name} | ${fmtSpread(spread(r.rps), 0)} | ${fmt(median(r.p50))} / ${fmt(median(r.p99))} | ${fmt(pathCores(r))} | ${fmt(perCpuSecond(r), 0)} | ${r.bad} |`,
    ),
    '',
    `Two replicas ÷ one replica, req/s: **${fmt(ratio)}**; reads per CPU-second of the path: ${fmt(efficiency)}. The path: the load generator, haproxy, the replicas, PostgreSQL (its postmaster and every backend) and the card service.`,
    '',
    'Where the CPU went (median over rounds; µs of CPU per request served, and cores busy: CPU time ÷ wall time, out of ' +
      `${context.cores}):`,
    '',
    '| process | one replica: µs / request | cores | two replicas: µs / request | cores |',
    '|---|---|---|---|---|',
    ...processes.map((name) => `| ${name} | ${cell(one, name)} | ${cell(two, name)} |`),
    '',
    explanation,
    '',
  ].join('\n');
}
