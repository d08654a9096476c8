// Peer: fastify with @fastify/http-proxy (undici underneath).
import proxy from '@fastify/http-proxy';
import Fastify from 'fastify';

const app = Fastify({ logger: false });
await app.register(proxy, {
  upstream: process.env.UPSTREAM_URL as string,
  prefix: '/api/cards',
  rewritePrefix: '/card',
  replyOptions: {
    rewriteRequestHeaders: (_req, headers) => ({ ...headers, 'x-api-key': 'bench-key' }),
  },
});
const address = await app.listen({ port: 0, host: '127.0.0.1' });
console.log(`READY ${new URL(address).port}`);
process.on('SIGTERM', () => {
  void app.close().then(() => process.exit(0));
});
