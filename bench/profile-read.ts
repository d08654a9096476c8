// Ad-hoc: profile the BFF read path under sequential load. Not part of `pnpm bench`.
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCardService } from '@card-console/card-service-sim';
import { startBff } from './lib/bff';
import { startTs } from './lib/child';
import { sequentialLatency } from './lib/latency';

const sim = createCardService({ apiKey: 'bench-key', rateLimit: false });
const { url } = await sim.listen(0);
const body = await (await fetch(`${url}/card`, { headers: { 'x-api-key': 'bench-key' } })).text();
await sim.close();
const pageFile = join(tmpdir(), 'cc-prof-page.json');
writeFileSync(pageFile, body);
const upstream = await startTs('bench/servers/static-upstream.ts', {
  env: { PAGE_FILE: pageFile },
  ready: /^READY/,
});
const upstreamUrl = `http://127.0.0.1:${upstream.readyLine.split(' ')[1]}`;
const bff = await startBff({
  upstreamUrl,
  apiKey: 'bench-key',
  // ENTRY=apps/bff/src/index.ts profiles the TypeScript under tsx instead of the bundle.
  ...(process.env.ENTRY ? { entry: process.env.ENTRY } : {}),
  ...(process.env.PROFILE
    ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${process.env.PROF_DIR ?? '/tmp/prof'}`] }
    : {}),
});
const cookie = await bff.signIn();
const headers = { cookie, 'x-csrf': '1' };
const direct = await sequentialLatency({ url: `${upstreamUrl}/card`, requests: 3000 });
const via = await sequentialLatency({ url: `${bff.url}/api/cards`, requests: 3000, headers });
console.log({ direct: direct.p50, bff: via.p50, added: via.p50 - direct.p50 });
await bff.stop();
await upstream.stop();
