// Draining a real HTTP server with real requests in flight: finish within the grace, cut after.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { lineSink } from '../../test/capture';
import { createLogger } from '../logger';
import { createGracefulShutdown } from './graceful-shutdown';

let server: http.Server | undefined;
afterEach(() => {
  server?.closeAllConnections();
  server?.close();
  server = undefined;
});

/** A server whose `/slow` answers when the test says, and `/stream` writes a chunk and never ends. */
async function startServer() {
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let arrive: () => void = () => {};
  /** Resolves once a `/slow` or `/stream` request has reached the handler. */
  const arrived = new Promise<void>((resolve) => {
    arrive = resolve;
  });
  const s = http.createServer((req, res) => {
    if (req.url !== '/quick') arrive();
    if (req.url === '/slow') {
      res.setHeader('Content-Type', 'text/plain');
      void released.then(() => res.end('done'));
    } else if (req.url === '/stream') {
      res.writeHead(200, { 'Content-Type': 'text/csv' });
      res.write('header\n');
    } else {
      res.end('quick');
    }
  });
  server = s;
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
  return { server: s, url, release, arrived };
}

/** A GET over a plain socket: status, headers, body, and whether the body ended properly. */
function get(url: string) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>(
    (resolve, reject) => {
      http
        .get(url, { agent: new http.Agent({ keepAlive: true }) }, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            body += chunk;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
          res.on('error', reject);
        })
        .on('error', reject);
    },
  );
}

function setUp(graceMs: number) {
  const logs: string[] = [];
  const logger = createLogger('info', lineSink(logs));
  const closed: string[] = [];
  const closers = [
    () => {
      closed.push('first added');
    },
    async () => {
      closed.push('last added');
    },
  ];
  return { logs, logger, closed, closers, graceMs };
}

describe('createGracefulShutdown', () => {
  it('refuses new connections, lets a request in flight finish (closing its connection), then closes clients last-added first', async () => {
    const s = await startServer();
    const o = setUp(30_000);
    const shutdown = createGracefulShutdown({ server: s.server, ...o });
    const inFlight = get(`${s.url}/slow`);
    await s.arrived;
    const done = shutdown.begin('SIGTERM');
    expect(shutdown.draining).toBe(true);
    await expect(fetch(`${s.url}/quick`)).rejects.toThrow();
    expect(o.closed).toEqual([]);

    s.release();
    const answer = await inFlight;
    expect(answer).toMatchObject({ status: 200, body: 'done' });
    expect(answer.headers.connection).toBe('close');
    await done;
    expect(shutdown.cutOff.aborted).toBe(false);
    expect(o.closed).toEqual(['last added', 'first added']);
    expect(o.logs.at(-1)).toContain('"msg":"stopped"');
  });

  it('cuts what still runs when the grace period ends, aborting cutOff first', async () => {
    const s = await startServer();
    const o = setUp(300);
    const shutdown = createGracefulShutdown({ server: s.server, ...o });
    let abortedWhileOpen: boolean | undefined;
    shutdown.cutOff.addEventListener('abort', () => {
      abortedWhileOpen = s.server.listening === false && o.closed.length === 0;
    });
    const stream = get(`${s.url}/stream`);
    await s.arrived;
    await shutdown.begin('SIGTERM');
    // The body never ended: the client sees the connection break, not a short file.
    await expect(stream).rejects.toThrow();
    expect(abortedWhileOpen).toBe(true);
    expect(o.closed).toEqual(['last added', 'first added']);
    expect(o.logs.some((l) => l.includes('grace period over'))).toBe(true);
  });

  it('a second signal cuts at once instead of waiting out the grace', async () => {
    const s = await startServer();
    const o = setUp(10 * 60_000);
    const shutdown = createGracefulShutdown({ server: s.server, ...o });
    const stream = get(`${s.url}/stream`);
    await s.arrived;
    const first = shutdown.begin('SIGTERM');
    const second = shutdown.begin('SIGINT');
    await Promise.all([first, second]);
    expect(shutdown.cutOff.aborted).toBe(true);
    await expect(stream).rejects.toThrow();
  });

  it('with nothing in flight, stops without cutting anything', async () => {
    const s = await startServer();
    const o = setUp(10 * 60_000);
    const shutdown = createGracefulShutdown({ server: s.server, ...o });
    expect((await get(`${s.url}/quick`)).body).toBe('quick'); // leaves an idle kept-alive connection
    await shutdown.begin('SIGTERM');
    expect(shutdown.cutOff.aborted).toBe(false);
    expect(o.logs.some((l) => l.includes('grace period over'))).toBe(false);
  });

  it('a client that fails to close is logged, and the others still close', async () => {
    const s = await startServer();
    const o = setUp(1_000);
    const closers = [...o.closers, () => Promise.reject(new Error('pool already ended'))];
    const shutdown = createGracefulShutdown({ server: s.server, ...o, closers });
    await shutdown.begin('SIGTERM');
    expect(o.closed).toEqual(['last added', 'first added']);
    expect(o.logs.some((l) => l.includes('pool already ended'))).toBe(true);
  });
});
