// The haproxy configuration operators deploy, run by Debian's haproxy (test/engines/haproxy.ts
// reads the shipped file itself): what a person types into a search travels in the query
// string, and the proxy's log keeps the path without it, over HTTP/1.1 and HTTP/2.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, fetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Balancer, startHaproxy } from '../test/engines/haproxy';
import { testPan } from '../test/test-pan';

let replica: Server;
let balancer: Balancer;
/** The query strings the replica received: haproxy passes them on, it only leaves them unlogged. */
const received: string[] = [];

beforeAll(async () => {
  // Stands in for a replica: answers its health check and every request with 200.
  replica = createServer((req, res) => {
    received.push(req.url ?? '');
    res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"items":[]}');
  });
  await new Promise<void>((resolve) => replica.listen(0, '127.0.0.1', resolve));
  balancer = await startHaproxy([(replica.address() as AddressInfo).port], undefined, {
    accessLog: true,
  });
}, 60_000);

afterAll(async () => {
  await balancer?.stop();
  await new Promise((resolve) => replica?.close(resolve));
});

async function loggedLine(path: string): Promise<string> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const line = balancer.log.find((l) => l.includes(path));
    if (line) return line;
    if (Date.now() > deadline) {
      throw new Error(`haproxy logged no request for ${path}:\n${balancer.log.join('\n')}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("the shipped haproxy config's request log", () => {
  for (const http2 of [false, true]) {
    it(`logs a search's path but not the card number in its query (HTTP/${http2 ? '2' : '1.1'})`, async () => {
      const pan = testPan(http2 ? 7 : 3);
      const spaced = pan.replace(/(\d{4})(?=\d)/g, '$1 ');
      const path = `/api/transactions/search-${http2 ? 'h2' : 'h1'}`;
      const query = `?q=${encodeURIComponent(spaced)}&card=${pan}&sort=newest`;
      const dispatcher = new Agent({ allowH2: http2, connect: { rejectUnauthorized: false } });
      try {
        const res = await fetch(`${balancer.origin}${path}${query}`, { dispatcher });
        expect(res.status).toBe(200);
        await res.arrayBuffer();
      } finally {
        await dispatcher.close();
      }
      expect(received).toContain(`${path}${query}`);

      const line = await loggedLine(path);
      const log = balancer.log.join('\n');
      for (const secret of [pan, spaced, encodeURIComponent(spaced), pan.slice(-12)]) {
        expect(log).not.toContain(secret);
      }
      expect(line).toMatch(new RegExp(`"GET ${path} HTTP/${http2 ? '2\\.0' : '1\\.1'}"$`));
      expect(line).toMatch(/ 200 /);
      expect(log).not.toContain('q=');
      expect(log).not.toContain('sort=newest');
    });
  }
});
