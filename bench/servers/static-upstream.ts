// The upstream for the proxied-read benchmark: answers GET /card with the same bytes every
// time (a real ~25-card page captured from the simulator), so every peer proxies identical work.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const body = readFileSync(process.env.PAGE_FILE as string);
const server = createServer((req, res) => {
  if (req.method === 'GET' && (req.url === '/card' || req.url?.startsWith('/card?'))) {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
    res.end(body);
    return;
  }
  res.writeHead(404, { 'content-type': 'application/json' });
  res.end('{"status":404,"code":"not_found","message":"not found"}');
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') console.log(`READY ${address.port}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
