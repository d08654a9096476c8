// Ad-hoc, not part of `pnpm bench`: a V8 CPU profile of the BFF bundle (run as `pnpm start`
// runs it) under the proxied-read benchmark's uncoalesced load, and its self time by function.
//   cd bench && npx tsx profile-read.ts            (PROF_DIR=/tmp/prof, SECONDS=10)
// ENTRY=apps/bff/src/index.ts profiles the TypeScript under tsx instead of the bundle;
// FLOOR=1 profiles the floor instead; NODE_ARGS="--max-semi-space-size=16" adds node flags after the `serve` script's.
// GC=1 also prints the main thread's collections over the load (lib/gc-window.mjs): how many a
// second of each kind, their mean time, and what a scavenge found alive and promoted. What a
// request allocates shows in the scavenges a second ÷ the requests; what it keeps alive while
// others run shows in the survivors, the figure to compare builds by on a noisy machine.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { bffServeCommand, startBff } from './lib/bff';
import { benchCardQueries, captureCardPage } from './lib/card-queries';
import { cpuMicros, startTs } from './lib/child';
import { load } from './lib/load';

const PEOPLE = 32;
const profDir = process.env.PROF_DIR ?? '/tmp/prof';
rmSync(profDir, { recursive: true, force: true, maxRetries: 5 });
mkdirSync(profDir, { recursive: true });

const pageFile = await captureCardPage('bench-key');
const queries = await benchCardQueries('bench-key');
const upstream = await startTs('bench/servers/static-upstream.ts', {
  env: { PAGE_FILE: pageFile },
  ready: /^READY/,
});
const upstreamUrl = `http://127.0.0.1:${upstream.readyLine.split(' ')[1]}`;
// NOPROF=1: no profiler, only the CPU a request costs the serving process (to compare builds).
const noProfile = Boolean(process.env.NOPROF);
const gcWindow = process.env.GC ? join(profDir, 'gc-window.json') : undefined;
// The children inherit the environment: the served process writes its window there.
if (gcWindow) process.env.GC_WINDOW_FILE = gcWindow;
const profiling = [
  ...(process.env.NODE_ARGS?.split(' ').filter(Boolean) ?? []),
  ...(noProfile ? [] : ['--cpu-prof', `--cpu-prof-dir=${profDir}`]),
  ...(gcWindow ? ['--import', join(import.meta.dirname, 'lib', 'gc-window.mjs')] : []),
];
// FLOOR=1 profiles the floor (bench/servers/floor-read.ts) under the same load instead.
let target: { url: string; stop(): Promise<void>; pid: number };
let cookies: string[];
if (process.env.FLOOR) {
  const serve = bffServeCommand();
  cookies = Array.from({ length: PEOPLE }, () => randomBytes(32).toString('base64url'));
  const floor = await startTs('bench/servers/floor-read.ts', {
    env: { ...serve.env, UPSTREAM_URL: upstreamUrl, SESSION_IDS: cookies.join(',') },
    ready: /^READY/,
    nodeArgs: [...serve.nodeArgs, ...profiling],
  });
  cookies = cookies.map((id) => `sid=${id}`);
  target = {
    url: `http://127.0.0.1:${floor.readyLine.split(' ')[1]}`,
    stop: () => floor.stop(),
    pid: floor.pid,
  };
} else {
  const bff = await startBff({
    upstreamUrl,
    apiKey: 'bench-key',
    people: PEOPLE,
    ...(process.env.ENTRY ? { entry: process.env.ENTRY } : {}),
    nodeArgs: profiling,
  });
  cookies = [];
  for (let i = 0; i < PEOPLE; i++) cookies.push(await bff.signIn(`bench${i}@example.test`));
  target = { url: bff.url, stop: () => bff.stop(), pid: bff.child.pid };
}
const cpuBefore = cpuMicros(target.pid);
if (gcWindow) process.kill(target.pid, 'SIGUSR2');
const r = await load({
  url: target.url,
  connections: 32,
  durationSeconds: Number(process.env.SECONDS ?? 10),
  requestAt: (k) => ({
    path: queries[k % queries.length]?.api as string,
    headers: { cookie: cookies[k % PEOPLE] as string, 'x-csrf': '1' },
  }),
});
const cpuPerRequest = Math.round((cpuMicros(target.pid) - cpuBefore) / r.requests);
console.log({
  rps: r.requestsPerSecond,
  requests: r.requests,
  bad: r.non2xx + r.errors,
  cpuPerRequest,
});
if (gcWindow) {
  process.kill(target.pid, 'SIGUSR2');
  for (let i = 0; i < 50 && !existsSync(gcWindow); i++) await sleep(100);
  printGcWindow(JSON.parse(readFileSync(gcWindow, 'utf8')), r.requests);
}
await target.stop();
await upstream.stop();
if (noProfile) process.exit(0);

// Self time by function (and by URL's last path part), as a share of the samples taken while
// the load ran (the busy seconds: start-up and sign-in are left out), and time including callees.
interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
if (!file) throw new Error('no profile written');
const profile = JSON.parse(readFileSync(join(profDir, file), 'utf8')) as {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
};
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const keyOf = (n: Node) =>
  `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.split('/').slice(-2).join('/')}:${n.callFrame.lineNumber}`;
// The load's window: the last SECONDS of samples before the process was stopped, found as the
// span between the first and last second in which the process was mostly busy.
const at: number[] = [];
let clock = 0;
for (const dt of profile.timeDeltas) {
  clock += dt;
  at.push(clock);
}
const secondsBusy = new Map<number, { busy: number; all: number }>();
profile.samples.forEach((id, i) => {
  const s = Math.floor((at[i] as number) / 1e6);
  const e = secondsBusy.get(s) ?? { busy: 0, all: 0 };
  const dt = profile.timeDeltas[i] ?? 0;
  e.all += dt;
  if (byId.get(id)?.callFrame.functionName !== '(idle)') e.busy += dt;
  secondsBusy.set(s, e);
});
const busySeconds = [...secondsBusy.entries()]
  .filter(([, e]) => e.busy > 0.4 * e.all)
  .map(([s]) => s);
const lastBusy = Math.max(...busySeconds);
const from = (lastBusy - Number(process.env.SECONDS ?? 10) + 2) * 1e6;
const to = lastBusy * 1e6;
const self = new Map<string, number>();
const inclusive = new Map<string, number>();
let total = 0;
profile.samples.forEach((id, i) => {
  const t = at[i] as number;
  if (t < from || t >= to) return;
  const dt = profile.timeDeltas[i] ?? 0;
  total += dt;
  const n = byId.get(id);
  if (!n) return;
  self.set(keyOf(n), (self.get(keyOf(n)) ?? 0) + dt);
  const seen = new Set<string>();
  for (let m: Node | undefined = n; m; m = byId.get(parent.get(m.id) ?? -1)) {
    const k = keyOf(m);
    if (seen.has(k)) continue;
    seen.add(k);
    inclusive.set(k, (inclusive.get(k) ?? 0) + dt);
  }
});
// Requests answered in the window, at the load's mean rate.
const requestsInWindow = r.requestsPerSecond * ((to - from) / 1e6);
const perRequest = (us: number) => (us / requestsInWindow).toFixed(1);
const print = (title: string, m: Map<string, number>, count: number) => {
  console.log(`\n${title} (window ${((to - from) / 1e6).toFixed(0)} s)`);
  for (const [key, us] of [...m.entries()].sort((a, b) => b[1] - a[1]).slice(0, count))
    console.log(
      `${((100 * us) / total).toFixed(1).padStart(5)}%  ${perRequest(us).padStart(6)} µs/req  ${key}`,
    );
};
print('self time', self, 40);
if (process.env.INCLUSIVE)
  print('time including callees', inclusive, Number(process.env.INCLUSIVE));

interface GcEvent {
  gcType: string;
  cost: number;
  beforeGC: { heapSpaceStatistics: { spaceName: string; spaceUsedSize: number }[] };
  afterGC: { heapSpaceStatistics: { spaceName: string; spaceUsedSize: number }[] };
}
/** `v8.GCProfiler`'s account of the window, by kind of collection, per second and per request. */
function printGcWindow(
  window: { startTime: number; endTime: number; statistics: GcEvent[] },
  requests: number,
) {
  const used = (at: GcEvent['beforeGC'], space: string) =>
    at.heapSpaceStatistics.find((s) => s.spaceName === space)?.spaceUsedSize ?? 0;
  const seconds = (window.endTime - window.startTime) / 1000;
  const kinds = new Map<string, GcEvent[]>();
  for (const e of window.statistics) {
    const events = kinds.get(e.gcType) ?? [];
    events.push(e);
    kinds.set(e.gcType, events);
  }
  const mean = (events: GcEvent[], f: (e: GcEvent) => number) =>
    events.reduce((sum, e) => sum + f(e), 0) / events.length;
  const mb = (bytes: number) => (bytes / 1e6).toFixed(2);
  console.log(`\ncollections of the main thread over the load (${seconds.toFixed(1)} s)`);
  for (const [kind, events] of kinds) {
    const totalUs = events.reduce((sum, e) => sum + e.cost, 0);
    console.log(
      `${kind.padEnd(20)} ${(events.length / seconds).toFixed(1).padStart(5)}/s, ${(totalUs / events.length / 1000).toFixed(2)} ms each, ${(totalUs / requests).toFixed(0)} µs/request; ` +
        `young before ${mb(mean(events, (e) => used(e.beforeGC, 'new_space')))} MB, alive after ${mb(mean(events, (e) => used(e.afterGC, 'new_space')))} MB, ` +
        `old ${mb(mean(events, (e) => used(e.afterGC, 'old_space') - used(e.beforeGC, 'old_space')))} MB`,
    );
  }
}
