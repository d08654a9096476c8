// TEMPORARY A/B: interleaved sequential p50 + RSS for several BFF variants.
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCardService } from '@card-console/card-service-sim';
import { startBff } from './lib/bff';
import { cpuMicros, peakRssMb, startTs } from './lib/child';
import { sequentialLatency } from './lib/latency';
import { load } from './lib/load';

const variants = JSON.parse(process.env.VARIANTS as string) as {
  name: string;
  entry: string;
  nodeArgs?: string[];
}[];
const rounds = Number(process.env.ROUNDS ?? 5);
const sim = createCardService({ apiKey: 'bench-key', rateLimit: false });
const { url } = await sim.listen(0);
const body = await (await fetch(`${url}/card`, { headers: { 'x-api-key': 'bench-key' } })).text();
await sim.close();
const pageFile = join(tmpdir(), 'cc-ab-page.json');
writeFileSync(pageFile, body);
const upstream = await startTs('bench/servers/static-upstream.ts', {
  env: { PAGE_FILE: pageFile },
  ready: /^READY/,
});
const upstreamUrl = `http://127.0.0.1:${upstream.readyLine.split(' ')[1]}`;
const bffs = [] as {
  name: string;
  bff: Awaited<ReturnType<typeof startBff>>;
  headers: Record<string, string>;
  p50: number[];
  cpu: number[];
  rps: number[];
}[];
for (const v of variants) {
  const bff = await startBff({
    upstreamUrl,
    apiKey: 'bench-key',
    entry: v.entry,
    ...(v.nodeArgs ? { nodeArgs: v.nodeArgs } : {}),
  });
  const cookie = await bff.signIn();
  bffs.push({ name: v.name, bff, headers: { cookie, 'x-csrf': '1' }, p50: [], cpu: [], rps: [] });
}
const direct: number[] = [];
const med = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)] as number;
for (let r = 0; r < rounds; r++) {
  direct.push((await sequentialLatency({ url: `${upstreamUrl}/card`, requests: 1000 })).p50);
  for (const b of bffs) {
    const c0 = cpuMicros(b.bff.child.pid);
    const s = await sequentialLatency({
      url: `${b.bff.url}/api/cards`,
      requests: 1000,
      headers: b.headers,
    });
    b.cpu.push((cpuMicros(b.bff.child.pid) - c0) / 1050);
    b.p50.push(s.p50);
    if (process.env.LOAD)
      b.rps.push(
        (
          await load({
            url: `${b.bff.url}/api/cards`,
            connections: 32,
            durationSeconds: 3,
            headers: b.headers,
          })
        ).requestsPerSecond,
      );
  }
}
console.log('direct p50', med(direct).toFixed(3), direct.map((x) => x.toFixed(3)).join(' '));
for (const b of bffs)
  console.log(
    b.name.padEnd(12),
    'p50',
    med(b.p50).toFixed(3),
    'added',
    (med(b.p50) - med(direct)).toFixed(3),
    'cpu/req',
    med(b.cpu).toFixed(0),
    'rps',
    b.rps.length ? med(b.rps).toFixed(0) : '-',
    'peakRSS',
    peakRssMb(b.bff.child.pid).toFixed(1),
    '|',
    b.p50.map((x) => x.toFixed(3)).join(' '),
  );
for (const b of bffs) await b.bff.stop();
await upstream.stop();
