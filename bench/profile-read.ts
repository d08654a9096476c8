// Ad-hoc, not part of `pnpm bench`: a V8 CPU profile of the BFF bundle (run as `pnpm start`
// runs it) under the proxied-read benchmark's uncoalesced load, and its self time by function.
//   cd bench && npx tsx profile-read.ts            (PROF_DIR=/tmp/prof, SECONDS=10)
// ENTRY=apps/bff/src/index.ts profiles the TypeScript under tsx instead of the bundle;
// FLOOR=1 profiles the floor instead; NODE_ARGS="--max-semi-space-size=16" adds node flags after the `serve` script's.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { bffServeCommand, startBff } from './lib/bff';
import { benchCardQueries, captureCardPage } from './lib/card-queries';
import { startTs } from './lib/child';
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
const profiling = [
  ...(process.env.NODE_ARGS?.split(' ').filter(Boolean) ?? []),
  '--cpu-prof',
  `--cpu-prof-dir=${profDir}`,
];
// FLOOR=1 profiles the floor (bench/servers/floor-read.ts) under the same load instead.
let target: { url: string; stop(): Promise<void> };
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
  target = { url: `http://127.0.0.1:${floor.readyLine.split(' ')[1]}`, stop: () => floor.stop() };
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
  target = bff;
}
const r = await load({
  url: target.url,
  connections: 32,
  durationSeconds: Number(process.env.SECONDS ?? 10),
  requestAt: (k) => ({
    path: queries[k % queries.length]?.api as string,
    headers: { cookie: cookies[k % PEOPLE] as string, 'x-csrf': '1' },
  }),
});
console.log({ rps: r.requestsPerSecond, requests: r.requests, bad: r.non2xx + r.errors });
await target.stop();
await upstream.stop();

// Self time by function (and by URL's last path part), as a share of all samples.
interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
if (!file) throw new Error('no profile written');
const profile = JSON.parse(readFileSync(join(profDir, file), 'utf8')) as {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
};
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map<string, number>();
let total = 0;
profile.samples.forEach((id, i) => {
  const n = byId.get(id);
  const dt = profile.timeDeltas[i] ?? 0;
  total += dt;
  if (!n) return;
  const where = n.callFrame.url.split('/').slice(-2).join('/');
  const key = `${n.callFrame.functionName || '(anonymous)'} ${where}:${n.callFrame.lineNumber}`;
  self.set(key, (self.get(key) ?? 0) + dt);
});
const rows = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 40);
const perRequest = (us: number) => (us / r.requests).toFixed(1);
for (const [key, us] of rows)
  console.log(
    `${((100 * us) / total).toFixed(1).padStart(5)}%  ${perRequest(us).padStart(6)} µs/req  ${key}`,
  );
