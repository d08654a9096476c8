// Peer: Express 5 with http-proxy-middleware, the common "just proxy it" set-up.

import { Agent } from 'node:http';
import express from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';

const app = express();
app.use(
  createProxyMiddleware({
    target: process.env.UPSTREAM_URL,
    pathFilter: '/api/cards',
    pathRewrite: { '^/api/cards': '/card' },
    changeOrigin: true,
    agent: new Agent({ keepAlive: true, maxSockets: 64 }),
    headers: { 'x-api-key': 'bench-key' },
  }),
);
const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') console.log(`READY ${address.port}`);
});
server.keepAliveTimeout = 60_000;
process.on('SIGTERM', () => server.close(() => process.exit(0)));
