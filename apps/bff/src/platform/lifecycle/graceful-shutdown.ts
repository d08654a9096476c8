import type http from 'node:http';
import type { Logger } from 'pino';

/** Closes one pool, client or server; run once the HTTP server has stopped. */
export type Closer = () => Promise<void> | void;

export interface GracefulShutdown {
  /** True from the first signal on: /readyz fails and responses close their connection. */
  readonly draining: boolean;
  /** Aborted when the grace period ends with requests still running: exports cut themselves. */
  readonly cutOff: AbortSignal;
  /**
   * Stops accepting connections, lets in-flight requests finish for the grace period, then
   * cuts what remains and runs the closers (last added, first closed). Resolves when all is
   * closed. A second call (a second signal) cuts at once.
   */
  begin(reason: string): Promise<void>;
}

/** A closer that has not finished after this is left behind, so a hung pool cannot keep the process up. */
const CLOSER_LIMIT_MS = 5_000;
/** How often idle kept-alive connections are closed while draining. */
const SWEEP_MS = 100;

export function createGracefulShutdown(options: {
  server: http.Server;
  graceMs: number;
  logger: Logger;
  closers: Closer[];
  /** Aborted when the grace period ends with requests still running (the app's `cutOff`). */
  cutOff?: AbortController;
}): GracefulShutdown {
  const { server, graceMs, logger, closers } = options;
  const cut = options.cutOff ?? new AbortController();
  let draining = false;
  let finished: Promise<void> | undefined;
  let cutNow: (() => void) | undefined;

  // Node keeps a connection open after server.close() while it is kept alive: every response
  // from the drain on (those under way included) says `Connection: close`, so a client does
  // not send its next request down a connection about to close, and moves to another replica.
  const inFlight = new Set<http.ServerResponse>();
  server.prependListener('request', (_req: http.IncomingMessage, res: http.ServerResponse) => {
    if (draining) res.shouldKeepAlive = false;
    inFlight.add(res);
    res.once('close', () => inFlight.delete(res));
  });

  async function drain(reason: string): Promise<void> {
    logger.info(
      { reason, graceSeconds: graceMs / 1000 },
      'shutting down: no new connections; requests in flight may finish within the grace period',
    );
    for (const res of inFlight) if (!res.headersSent) res.shouldKeepAlive = false;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    // A response already under way when the drain began may still leave its connection idle.
    server.closeIdleConnections();
    const sweep = setInterval(() => server.closeIdleConnections(), SWEEP_MS);
    let timer: NodeJS.Timeout | undefined;
    const graceOver = new Promise<'cut'>((resolve) => {
      timer = setTimeout(() => resolve('cut'), graceMs);
      cutNow = () => resolve('cut');
    });
    const outcome = await Promise.race([closed.then(() => 'drained' as const), graceOver]);
    clearTimeout(timer);
    if (outcome === 'cut') {
      const open = await new Promise<number>((resolve) =>
        server.getConnections((_error, count) => resolve(count ?? 0)),
      );
      logger.warn({ connections: open }, 'grace period over: cutting the requests still running');
      cut.abort(); // exports log their row count and break their download off
      server.closeAllConnections();
      await withinLimit(closed).catch(() => logger.warn('connections still open after the cut'));
    }
    clearInterval(sweep);
    for (const close of [...closers].reverse()) {
      try {
        await withinLimit(Promise.resolve().then(close));
      } catch (error) {
        logger.error({ err: error }, 'closing a client during shutdown failed');
      }
    }
    logger.info('stopped');
  }

  return {
    get draining() {
      return draining;
    },
    cutOff: cut.signal,
    begin(reason) {
      if (finished) {
        cutNow?.();
        return finished;
      }
      draining = true;
      finished = drain(reason);
      return finished;
    },
  };
}

function withinLimit(work: Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<void>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`did not close within ${CLOSER_LIMIT_MS} ms`)),
      CLOSER_LIMIT_MS,
    );
  });
  return Promise.race([work, limit]).finally(() => clearTimeout(timer));
}
