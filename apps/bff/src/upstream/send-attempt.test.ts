import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { type AttemptRequest, sendAttempt } from './send-attempt';

const servers: Server[] = [];
const agents: Agent[] = [];

afterEach(async () => {
  await Promise.all(agents.splice(0).map((a) => a.destroy()));
  for (const s of servers.splice(0)) s.closeAllConnections();
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
});

async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function attempt(
  origin: string,
  over: Partial<AttemptRequest> = {},
): Promise<ReturnType<typeof sendAttempt> extends Promise<infer T> ? T : never> {
  const dispatcher = new Agent({ connections: 1 });
  agents.push(dispatcher);
  return sendAttempt({
    dispatcher,
    origin,
    path: '/x',
    method: 'GET',
    headers: {},
    timeoutMs: 2_000,
    maxBodyBytes: 1_000,
    ...over,
  });
}

describe('sendAttempt', () => {
  it('reads a body that arrives in pieces', async () => {
    const origin = await serve((_req, res) => {
      res.write('{"a":');
      setTimeout(() => res.end('1}'), 20);
    });
    expect(await attempt(origin)).toMatchObject({ kind: 'response', status: 200, body: '{"a":1}' });
  });

  it('refuses a streamed body past the limit without buffering it, and drops the exchange', async () => {
    let closed = false;
    const origin = await serve((req, res) => {
      req.socket.on('close', () => {
        closed = true;
      });
      const chunk = 'x'.repeat(400);
      const timer = setInterval(() => res.write(chunk), 5);
      res.on('close', () => clearInterval(timer));
    });
    expect(await attempt(origin)).toEqual({ kind: 'too-large' });
    await expect.poll(() => closed).toBe(true);
  });

  it('refuses a declared length past the limit at the headers', async () => {
    const origin = await serve((_req, res) => {
      res.writeHead(200, { 'content-length': '5000' });
      res.write('x');
    });
    expect(await attempt(origin)).toEqual({ kind: 'too-large' });
  });

  it('ends as aborted when the caller goes away, and drops the exchange', async () => {
    let closed = false;
    const origin = await serve((req) => {
      req.socket.on('close', () => {
        closed = true;
      });
    });
    const gone = new AbortController();
    const pending = attempt(origin, { signal: gone.signal });
    setTimeout(() => gone.abort(), 50);
    expect(await pending).toEqual({ kind: 'aborted' });
    await expect.poll(() => closed).toBe(true);
  });

  it('times out on time even while queued behind a hung exchange', async () => {
    const origin = await serve(() => {
      // never answers
    });
    const dispatcher = new Agent({ connections: 1, pipelining: 1 });
    agents.push(dispatcher);
    const base = {
      dispatcher,
      origin,
      path: '/x',
      method: 'GET',
      headers: {},
      maxBodyBytes: 1_000,
    } as const;
    let firstEnded = false;
    void sendAttempt({ ...base, timeoutMs: 5_000 }).then(() => {
      firstEnded = true;
    });
    const queued = await sendAttempt({ ...base, timeoutMs: 100 });
    expect(queued).toEqual({ kind: 'timeout' });
    expect(firstEnded).toBe(false); // it did not wait for the connection to free up
  });

  it('reports a refused connection as a network failure', async () => {
    const origin = await serve(() => undefined);
    const port = new URL(origin).port;
    for (const s of servers.splice(0)) s.close();
    const outcome = await attempt(`http://127.0.0.1:${port}`);
    expect(outcome.kind).toBe('network');
  });
});
