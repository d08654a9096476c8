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
  'Redis',
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
  watched: { replicas: [number, number]; redis: number[]; simulator: number };
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
        { name: 'Redis', pids: watched.redis },
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
  // What the machine could serve if every core not taken by others went to this path alone.
  const ceiling = (r: ReplicaResult) =>
    ((context.cores - coresOf(r, 'other processes on the machine')) * 1e6) / ours(r);
  const saturated = coresOf(one, 'idle') < 0.15 * context.cores;
  const explanation = [
    `Two replicas served ${fmt(ratio)}× the requests of one.`,
    `The machine has ${context.cores} cores, and everything here runs on them: the load generator, haproxy, Redis, the card service and the replicas.`,
    `Per request, the BFF replicas together used ${fmt(bffs(one), 0)} µs of CPU with one replica and ${fmt(bffs(two), 0)} µs with two; everything else in the path (load generator, haproxy, Redis, card service) ${fmt(rest(one), 0)} and ${fmt(rest(two), 0)} µs. The replica is ${fmt((100 * bffs(one)) / ours(one), 0)} % of what a read costs the machine here.`,
    `With one replica the replica kept ${fmt(coresOf(one, 'BFF replica 1'), 2)} cores busy (a Node process runs its JavaScript on one), and the machine was idle ${fmt(coresOf(one, 'idle'), 2)} of its ${context.cores} cores; with two, idle ${fmt(coresOf(two, 'idle'), 2)}.`,
    saturated
      ? 'With one replica the machine was already busy: a second replica has no free core to run on, it only takes turns with the others.'
      : 'With one replica a core was partly free: the second replica can use it, up to the point where the machine is busy.',
    `Spread over the cores not taken by processes outside this benchmark (${fmt(coresOf(one, 'other processes on the machine'), 2)} and ${fmt(coresOf(two, 'other processes on the machine'), 2)} cores in the two setups), these costs allow at most ${fmt(ceiling(one), 0)} and ${fmt(ceiling(two), 0)} reads a second; ${fmt(median(one.rps), 0)} and ${fmt(median(two.rps), 0)} were served.`,
    'On machines where the balancer, Redis, the card service and the people are elsewhere, each replica brings its own core and the ratio is what the replicas alone allow; here it cannot be.',
  ].join(' ');
  return [
    `### One replica behind haproxy beside two (${results[0]?.rps.length ?? 0} interleaved rounds of ${context.seconds} s, ${context.people} people, sessions in Redis for both)`,
    '',
    "The same people, cookies and distinct queries as above, through Debian's haproxy (plain HTTP/1.1 on loopback, round-robin, `/readyz` health checks: TLS would add the balancer's and the client's handshake and cipher work to both rows alike) to one replica, or to two replicas of the same bundle sharing the Redis. Each cell: median (min–max) over rounds.",
    '',
    '| setup | req/s | p50 / p99 ms | non-2xx or errors |',
    '|---|---|---|---|',
    ...results.map(
      (r) =>
        `| ${r.name} | ${fmtSpread(spread(r.rps), 0)} | ${fmt(median(r.p50))} / ${fmt(median(r.p99))} | ${r.bad} |`,
    ),
    '',
    `Two replicas ÷ one replica, req/s: **${fmt(ratio)}**.`,
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
