// Heap flags for `pnpm start`, chosen by measurement: the same BFF bundle run with each
// candidate young-generation size and old-generation growth step, side by side, under the
// proxied-read benchmark's uncoalesced load (32 people, distinct queries), interleaved rounds.
// Reports req/s, p99, CPU per request and peak RSS for each setting.
import { bffServeCommand, buildBff, type RunningBff, startBff } from './lib/bff';
import { benchCardQueries, captureCardPage } from './lib/card-queries';
import { type Child, cpuMicros, peakRssMb, startTs } from './lib/child';
import { load } from './lib/load';
import { fmt, fmtSpread, spread } from './lib/stats';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const PEOPLE = 32;
const API_KEY = 'bench-key';

/**
 * Candidates: V8's defaults (a 16 MB young generation, the old generation's own growth step),
 * and young generations of 2 to 32 MB with old-generation growth steps of 20 and 50 %.
 */
const SETTINGS: { name: string; nodeArgs: string[] }[] = [
  { name: "V8's defaults", nodeArgs: [] },
  ...[
    [8, 20],
    [16, 20],
    [16, 50],
    [32, 20],
    [32, 50],
    [64, 20],
    [64, 50],
  ].map(([semi, growing]) => {
    const nodeArgs = [`--max-semi-space-size=${semi}`];
    if (growing !== undefined) nodeArgs.push(`--heap-growing-percent=${growing}`);
    return { name: nodeArgs.join(' '), nodeArgs };
  }),
];

interface Run {
  name: string;
  bff: RunningBff;
  cookies: string[];
  rps: number[];
  p99: number[];
  cpu: number[];
  bad: number;
}

export async function runHeapFlagsBench(): Promise<{ markdown: string }> {
  const pageFile = await captureCardPage(API_KEY);
  const queries = await benchCardQueries(API_KEY);
  const children: Child[] = [];
  try {
    const upstream = await startTs('bench/servers/static-upstream.ts', {
      env: { PAGE_FILE: pageFile },
      ready: /^READY/,
    });
    children.push(upstream);
    const upstreamUrl = `http://127.0.0.1:${upstream.readyLine.split(' ')[1]}`;
    // Each setting replaces the `serve` script's own flags; its environment (malloc) stays.
    const serve = bffServeCommand();
    buildBff();
    const runs: Run[] = [];
    let usersFile: string | undefined;
    for (const setting of SETTINGS) {
      const bff = await startBff({
        upstreamUrl,
        apiKey: API_KEY,
        people: PEOPLE,
        entry: serve.entry,
        env: serve.env,
        nodeArgs: setting.nodeArgs,
        ...(usersFile ? { usersFile } : {}),
      });
      usersFile = bff.usersFile;
      children.push(bff.child);
      const cookies: string[] = [];
      for (let p = 0; p < PEOPLE; p++) cookies.push(await bff.signIn(`bench${p}@example.test`));
      runs.push({ name: setting.name, bff, cookies, rps: [], p99: [], cpu: [], bad: 0 });
    }
    const drive = (run: Run, seconds: number) =>
      load({
        url: run.bff.url,
        connections: 32,
        durationSeconds: seconds,
        requestAt: (k) => ({
          path: queries[k % queries.length]?.api as string,
          headers: { cookie: run.cookies[k % PEOPLE] as string, 'x-csrf': '1' },
        }),
      });
    for (const run of runs) await drive(run, 1);
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < runs.length; i++) {
        const run = runs[(i + round) % runs.length] as Run;
        const before = cpuMicros(run.bff.child.pid);
        const r = await drive(run, SECONDS);
        run.cpu.push((cpuMicros(run.bff.child.pid) - before) / Math.max(1, r.requests));
        run.rps.push(r.requestsPerSecond);
        run.p99.push(r.p99Ms);
        run.bad += r.non2xx + r.errors;
      }
    }
    const rows = runs.map(
      (r) =>
        `| \`${r.name}\` | ${fmtSpread(spread(r.rps), 0)} | ${fmt(spread(r.p99).median)} | ${fmtSpread(spread(r.cpu), 0)} | ${fmt(peakRssMb(r.bff.child.pid), 1)} | ${r.bad} |`,
    );
    const markdown = [
      `### Node flags for the BFF (${ROUNDS} interleaved rounds of ${SECONDS} s each, uncoalesced: ${PEOPLE} people over 32 connections, ${queries.length} distinct queries)`,
      '',
      `The same bundle, one process per setting, all started before the first round; each replaces the \`serve\` script's node flags (now \`${serve.nodeArgs.join(' ')}\`), keeping its environment. CPU is the process's, all threads (the garbage collector's helpers included). Peak RSS is each process's high-water mark over the whole run.`,
      '',
      '| node flags | req/s | p99 ms | CPU µs / request | peak RSS MB | non-2xx or errors |',
      '|---|---|---|---|---|---|',
      ...rows,
      '',
    ].join('\n');
    return { markdown };
  } finally {
    await Promise.all(children.map((c) => c.stop()));
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { markdown } = await runHeapFlagsBench();
  console.log(markdown);
}
