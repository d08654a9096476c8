// The simulator in a process of its own (`card-service-process.ts` starts it), behind a proxy in
// that process that notes when each request came and how it was answered (Unix ms): the BFF's
// work (its engine's writes on its one thread) never delays the noting. Also
// answers `GET /__recorded` (the requests so far) and `GET /__rows?sub=…&from=…` (how many
// transactions of a sub account are dated at or after `from`).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createCardService } from '@card-console/card-service-sim';

interface Seen {
  at: number;
  status: number;
  retryAfterMs?: number;
  answeredAt: number;
}

const options = JSON.parse(process.env.CARD_SERVICE_OPTIONS ?? '{}');
const sim = createCardService(options);
const { url } = await sim.listen(0, '127.0.0.1');
const target = new URL(url);
const seen: Seen[] = [];

const server = http.createServer((req, res) => {
  const path = new URL(req.url ?? '/', 'http://x');
  if (path.pathname === '/__recorded') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(seen));
    return;
  }
  if (path.pathname === '/__rows') {
    const from = Number(path.searchParams.get('from'));
    const rows = sim.data
      .transactions(path.searchParams.get('sub') ?? '')
      .filter((t) => Date.parse(t.date) >= from);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ rows: rows.length }));
    return;
  }
  const entry: Seen = { at: Date.now(), status: 0, answeredAt: Number.NaN };
  seen.push(entry);
  const up = http.request(
    {
      host: target.hostname,
      port: target.port,
      method: req.method,
      path: req.url,
      headers: req.headers,
    },
    (answer) => {
      entry.status = answer.statusCode ?? 0;
      const wait = answer.headers['retry-after'];
      if (typeof wait === 'string') entry.retryAfterMs = Number(wait) * 1000;
      res.writeHead(entry.status, answer.headers);
      answer.pipe(res);
      res.once('finish', () => {
        entry.answeredAt = Date.now();
      });
    },
  );
  up.once('error', () => res.destroy());
  req.pipe(up);
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
console.log(`ready http://127.0.0.1:${(server.address() as AddressInfo).port}`);
process.once('SIGTERM', () => process.exit(0));
