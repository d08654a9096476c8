// An HTTP proxy that makes a loopback upstream look remote: every request waits `delayMs`
// before it is passed on (the way there) and every answer `delayMs` before it is sent back
// (the way back), so one call costs a round trip of 2 × `delayMs` plus the upstream's own time.
// It records every request (route, status, when it arrived and when its answer was delivered),
// so a benchmark can count the calls made in a window and how many were in flight at once.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProxiedCall {
  method: string;
  /** The route with ids replaced (`GET /card/:id`), as the simulator's own stats name it. */
  route: string;
  /** The path and query asked for. */
  url: string;
  /** `performance.now()` when the request reached the proxy. */
  start: number;
  /** `performance.now()` when its answer was delivered back (NaN while in flight). */
  end: number;
  status: number;
  /** Requests in flight at the proxy when this one arrived, itself included. */
  inFlightAtStart: number;
  /** The items a list answer delivered (its `metadata.count`); undefined for other answers. */
  items?: number;
}

export interface CallWindow {
  calls: ProxiedCall[];
  /** Requests that arrived in the window. */
  count: number;
  /** Their count by route, e.g. `GET /transaction ×120, GET /sub-account ×1`. */
  byRoute: string;
  /** The most requests in flight at once during the window. */
  maxInFlight: number;
  /** Requests in flight on average from the first arrival to the last delivery (0: none). */
  meanInFlight: number;
  /** Answers the upstream refused with 429. */
  rateLimited: number;
}

export interface DelayingProxy {
  url: string;
  delayMs: number;
  /** A point in time (`performance.now()`) to count from. */
  mark(): number;
  /** The requests that arrived from `from` up to `to` (default: now). */
  window(from: number, to?: number, route?: (r: string) => boolean): CallWindow;
  /** Requests in flight now. */
  inFlight(): number;
  close(): Promise<void>;
}

/**
 * A list answer's `metadata.count` (the contract's list envelope), else undefined: read for the
 * transaction lists only, whose rows per page a benchmark compares.
 */
function listCount(payload: Buffer): number | undefined {
  try {
    const count = (JSON.parse(payload.toString('utf8')) as { metadata?: { count?: unknown } })
      .metadata?.count;
    return typeof count === 'number' ? count : undefined;
  } catch {
    return undefined;
  }
}

/** `/card/abc/reveal` → `/card/:id/reveal`: the resource's kind, not its id. */
function routeOf(method: string, url: string): string {
  const path = url.split('?')[0] ?? '/';
  const parts = path.split('/').filter(Boolean);
  return `${method} /${parts.map((p, i) => (i % 2 === 1 ? ':id' : p)).join('/')}`;
}

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
]);

function endToEnd(headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders {
  const out: http.OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!HOP_BY_HOP.has(name) && value !== undefined) out[name] = value;
  }
  return out;
}

export async function startDelayingProxy(options: {
  target: string;
  delayMs: number;
}): Promise<DelayingProxy> {
  const target = new URL(options.target);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 512 });
  const calls: ProxiedCall[] = [];
  let inFlight = 0;
  const later = (fn: () => void) => setTimeout(fn, options.delayMs);

  const server = http.createServer({ keepAliveTimeout: 30_000 }, (req, res) => {
    const method = req.method ?? 'GET';
    inFlight += 1;
    const call: ProxiedCall = {
      method,
      route: routeOf(method, req.url ?? '/'),
      url: req.url ?? '/',
      start: performance.now(),
      end: Number.NaN,
      status: 0,
      inFlightAtStart: inFlight,
    };
    calls.push(call);
    res.once('close', () => {
      inFlight -= 1;
      call.end = performance.now();
    });
    const body: Buffer[] = [];
    req.on('data', (chunk: Buffer) => body.push(chunk));
    req.once('end', () =>
      // The way there.
      later(() => {
        if (res.destroyed) return;
        const up = http.request(
          {
            host: target.hostname,
            port: target.port,
            method,
            path: req.url,
            headers: { ...endToEnd(req.headers), host: target.host },
            agent,
          },
          (answer) => {
            const chunks: Buffer[] = [];
            answer.on('data', (chunk: Buffer) => chunks.push(chunk));
            answer.once('end', () =>
              // The way back.
              later(() => {
                call.status = answer.statusCode ?? 0;
                if (res.destroyed) return;
                const payload = Buffer.concat(chunks);
                const items = call.route === 'GET /transaction' ? listCount(payload) : undefined;
                if (items !== undefined) call.items = items;
                res.writeHead(call.status, {
                  ...endToEnd(answer.headers),
                  'content-length': payload.length,
                });
                res.end(payload);
              }),
            );
            answer.once('error', () => res.destroy());
          },
        );
        up.once('error', () => res.destroy());
        // The BFF gave up on the call (a deadline, an abort): so does the proxy.
        res.once('close', () => {
          if (!res.writableFinished) up.destroy();
        });
        up.end(Buffer.concat(body));
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    delayMs: options.delayMs,
    mark: () => performance.now(),
    inFlight: () => inFlight,
    window(from, to = Number.POSITIVE_INFINITY, route = () => true) {
      const inside = calls.filter((c) => c.start >= from && c.start <= to && route(c.route));
      // The most in flight at once: sweep arrivals and deliveries in time order.
      const events = inside.flatMap((c) => [
        [c.start, 1] as const,
        [Number.isNaN(c.end) ? Number.POSITIVE_INFINITY : c.end, -1] as const,
      ]);
      events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
      let now = 0;
      let maxInFlight = 0;
      for (const [, step] of events) {
        now += step;
        maxInFlight = Math.max(maxInFlight, now);
      }
      const first = Math.min(...inside.map((c) => c.start));
      const last = Math.max(...inside.map((c) => c.end));
      const busy = inside.reduce((sum, c) => sum + (c.end - c.start), 0);
      const counts = new Map<string, number>();
      for (const c of inside) counts.set(c.route, (counts.get(c.route) ?? 0) + 1);
      return {
        calls: inside,
        count: inside.length,
        byRoute:
          [...counts]
            .sort((a, b) => b[1] - a[1])
            .map(([r, n]) => `${r} ×${n}`)
            .join(', ') || 'none',
        maxInFlight,
        meanInFlight: inside.length && last > first ? busy / (last - first) : 0,
        rateLimited: inside.filter((c) => c.status === 429).length,
      };
    },
    close: () =>
      new Promise<void>((resolve) => {
        agent.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
