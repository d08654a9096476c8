import { startBff } from './lib/bff';
import { peakRssMb, rssMb, startTs } from './lib/child';
import { load } from './lib/load';

const upstream = await startTs('bench/servers/static-upstream.ts', {
  env: { PAGE_FILE: '/tmp/cc-ab-page.json' },
  ready: /^READY/,
});
const upstreamUrl = `http://127.0.0.1:${upstream.readyLine.split(' ')[1]}`;
const bff = await startBff({
  upstreamUrl,
  apiKey: 'bench-key',
  entry: process.env.ENTRY as string,
  nodeArgs: (process.env.NODE_ARGS ?? '').split(' ').filter(Boolean),
});
const pid = bff.child.pid;
const show = (s: string) =>
  console.log(s.padEnd(12), 'rss', rssMb(pid).toFixed(1), 'hwm', peakRssMb(pid).toFixed(1));
show('started');
const cookie = await bff.signIn();
show('signed in');
await load({
  url: `${bff.url}/api/cards`,
  connections: 32,
  durationSeconds: 3,
  headers: { cookie, 'x-csrf': '1' },
});
show('after load');
await bff.stop();
await upstream.stop();
