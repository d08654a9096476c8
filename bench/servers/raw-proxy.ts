// Peer: the thinnest possible pass-through proxy on node:http with a keep-alive agent.
import { Agent, createServer, request } from 'node:http';

const upstream = new URL(process.env.UPSTREAM_URL as string);
const agent = new Agent({ keepAlive: true, maxSockets: 64 });
const server = createServer((req, res) => {
  const upstreamReq = request(
    {
      host: upstream.hostname,
      port: upstream.port,
      method: req.method,
      path: req.url?.replace(/^\/api\/cards/, '/card'),
      agent,
      headers: { 'x-api-key': 'bench-key' },
    },
    (upstreamRes) => {
      res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.headers);
      upstreamRes.pipe(res);
    },
  );
  upstreamReq.on('error', () => {
    res.writeHead(502);
    res.end();
  });
  req.pipe(upstreamReq);
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') console.log(`READY ${address.port}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
