// Proxied read, beside peers: the same ~25-card page read directly, through three common
// proxies, and through the Card Console BFF's real read path; interleaved rounds.
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCardService } from '@card-console/card-service-sim';
import { startBff } from './lib/bff';
import { type Child, cpuMicros, peakRssMb, startTs } from './lib/child';
import { sequentialLatency } from './lib/latency';
import { load } from './lib/load';
import { fmt, fmtSpread, spread, verdict } from './lib/stats';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const SEQUENTIAL_REQUESTS = Number(process.env.BENCH_SEQUENTIAL ?? 1500);

interface Target {
  name: string;
  url: string;
  pid: number;
  headers?: Record<string, string>;
  rps: number[];
  p50: number[];
  p99: number[];
  cpuPerRequest: number[];
  p50One: number[];
  bad: number;
}

async function capturePage(): Promise<string> {
  const sim = createCardService({ apiKey: 'bench-key', rateLimit: false });
  const { url } = await sim.listen(0);
  const res = await fetch(`${url}/card`, { headers: { 'x-api-key': 'bench-key' } });
  const body = await res.text();
  await sim.close();
  const file = join(tmpdir(), `cc-bench-card-page-${process.pid}.json`);
  writeFileSync(file, body);
  return file;
}

export async function runProxiedReadBench(): Promise<{ markdown: string }> {
  const pageFile = await capturePage();
  const children: Child[] = [];
  const start = async (entry: string, env: Record<string, string>) => {
    const child = await startTs(entry, { env, ready: /^READY \d+/ });
    children.push(child);
    return { child, url: `http://127.0.0.1:${child.readyLine.split(' ')[1]}` };
  };
  try {
    const upstream = await start('bench/servers/static-upstream.ts', { PAGE_FILE: pageFile });
    const raw = await start('bench/servers/raw-proxy.ts', { UPSTREAM_URL: upstream.url });
    const express = await start('bench/servers/express-proxy.ts', { UPSTREAM_URL: upstream.url });
    const fastify = await start('bench/servers/fastify-proxy.ts', { UPSTREAM_URL: upstream.url });
    const floorSession = randomBytes(32).toString('base64url');
    const floor = await start('bench/servers/floor-read.ts', {
      UPSTREAM_URL: upstream.url,
      SESSION_ID: floorSession,
    });
    const bff = await startBff({ upstreamUrl: upstream.url, apiKey: 'bench-key' });
    children.push(bff.child);
    const cookie = await bff.signIn();

    const mk = (
      name: string,
      url: string,
      pid: number,
      headers?: Record<string, string>,
    ): Target => ({
      name,
      url,
      pid,
      headers,
      rps: [],
      p50: [],
      p99: [],
      cpuPerRequest: [],
      p50One: [],
      bad: 0,
    });
    const targets: Target[] = [
      mk('upstream directly', `${upstream.url}/card`, upstream.child.pid),
      mk('raw node:http proxy', `${raw.url}/api/cards`, raw.child.pid),
      mk('Express 5 + http-proxy-middleware', `${express.url}/api/cards`, express.child.pid),
      mk('fastify + @fastify/http-proxy', `${fastify.url}/api/cards`, fastify.child.pid),
      mk('floor: the required work on bare node:http', `${floor.url}/api/cards`, floor.child.pid, {
        cookie: `sid=${floorSession}`,
        'x-csrf': '1',
      }),
      mk('Card Console BFF', `${bff.url}/api/cards`, bff.child.pid, { cookie, 'x-csrf': '1' }),
    ];

    for (const t of targets)
      await load({ url: t.url, connections: 8, durationSeconds: 1, headers: t.headers });
    for (let round = 0; round < ROUNDS; round++) {
      // Each round starts one target later, so no target always follows the same neighbour
      // (whose load leaves the machine warm or busy in its own way).
      for (let i = 0; i < targets.length; i++) {
        const t = targets[(i + round) % targets.length] as Target;
        const cpuBefore = cpuMicros(t.pid);
        const r = await load({
          url: t.url,
          connections: 32,
          durationSeconds: SECONDS,
          headers: t.headers,
        });
        const cpuAfter = cpuMicros(t.pid);
        t.rps.push(r.requestsPerSecond);
        t.p50.push(r.p50Ms);
        t.p99.push(r.p99Ms);
        t.cpuPerRequest.push((cpuAfter - cpuBefore) / Math.max(1, r.requests));
        t.bad += r.non2xx + r.errors;
        const one = await sequentialLatency({
          url: t.url,
          requests: SEQUENTIAL_REQUESTS,
          headers: t.headers,
        });
        t.p50One.push(one.p50);
      }
    }

    const rows = targets.map(
      (t) =>
        `| ${t.name} | ${fmtSpread(spread(t.rps), 0)} | ${fmt(spread(t.p50).median)} / ${fmt(spread(t.p99).median)} | ${fmtSpread(spread(t.cpuPerRequest), 0)} | ${fmt(peakRssMb(t.pid), 1)} | ${fmtSpread(spread(t.p50One), 3)} | ${t.bad} |`,
    );
    const [direct, rawT, , , floorT, bffT] = targets as [
      Target,
      Target,
      Target,
      Target,
      Target,
      Target,
    ];
    const ratio = spread(bffT.rps).median / spread(rawT.rps).median;
    const addedP50 = spread(bffT.p50One).median - spread(direct.p50One).median;
    const floorAddedP50 = spread(floorT.p50One).median - spread(direct.p50One).median;
    const bffRss = peakRssMb(bffT.pid);
    const summary = [
      {
        what: 'BFF req/s ÷ raw proxy req/s (32 connections)',
        value: fmt(ratio),
        target: '≥ 0.30',
        met: ratio >= 0.3,
      },
      {
        what: 'BFF added p50 at 1 connection (ms over direct)',
        value: fmt(addedP50, 3),
        target: '≤ 0.35',
        met: addedP50 <= 0.35,
      },
      { what: 'BFF peak RSS (MB)', value: fmt(bffRss, 1), target: '≤ 120', met: bffRss <= 120 },
    ];
    const floorNote = `For scale: the floor (the same required work with the BFF's own parts on bare node:http, no framework, rate limit, retries or coalescing) adds ${fmt(floorAddedP50, 3)} ms at 1 connection; the BFF adds ${fmt(addedP50 - floorAddedP50, 3)} ms on top of it.`;
    const markdown = [
      `### Proxied read, beside peers (${ROUNDS} interleaved rounds, each target in turn: ${SECONDS} s at 32 connections, then ${SEQUENTIAL_REQUESTS} sequential requests; each round starts one target later)`,
      '',
      'Each cell: median (min–max) over rounds. CPU is the serving process only (from /proc). The BFF runs its real read path, as `pnpm start` runs it: signed-in session, CSRF header, route table and per-user rate limit, query validation, upstream timeout/retry/coalescing, upstream schema validation, PAN/CVV stripping, structured logging, helmet headers. The floor is `bench/servers/floor-read.ts`.',
      '',
      '| target | req/s | p50 / p99 ms (32 conn) | CPU µs / request | peak RSS MB | p50 ms (1 conn) | non-2xx or errors |',
      '|---|---|---|---|---|---|---|',
      ...rows,
      '',
      '| target | measured | goal | |',
      '|---|---|---|---|',
      ...summary.map((s) => `| ${s.what} | ${s.value} | ${s.target} | ${verdict(s.met)} |`),
      '',
      floorNote,
      '',
    ].join('\n');
    return { markdown };
  } finally {
    await Promise.all(children.map((c) => c.stop()));
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { markdown } = await runProxiedReadBench();
  console.log(markdown);
}
