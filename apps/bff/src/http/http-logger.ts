import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import type { Metrics } from '../platform/metrics/metrics';
import { holdsCardNumber, withCardNumbersMasked } from '../platform/security/card-number-ids';

declare module 'node:http' {
  interface ServerResponse {
    /** An error to attach to the request's log line (set by the error middleware on 5xx). */
    err?: Error;
    /** The error body's `code` (set by the error middleware), e.g. to count 429s by code. */
    errorCode?: string;
  }
}

declare global {
  namespace Express {
    interface Request {
      /** The endpoint an API call matched (`PATCH /api/cards/:id`), for its log line. */
      apiRoute?: string;
    }
  }
}

/**
 * The path of a request URL for the log: no query string (its values may be anything a
 * person typed), and a card number pasted into it masked to its last four digits. An escaped
 * path is checked as it decodes, so `%20` between digit groups hides nothing.
 */
export function pathForLog(url: string): string {
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  if (path.includes('%')) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(path);
    } catch {
      decoded = path;
    }
    return holdsCardNumber(decoded) ? withCardNumbersMasked(decoded) : path;
  }
  // Grouped the way the card-number matcher reads digits (`.`, `_`, `/`, dashes…).
  return withCardNumbersMasked(path);
}

/**
 * The route a request is counted under: the endpoint's path for an API call
 * (`/api/cards/:id`), `/healthz` and `/readyz`, `(unmatched)` for another `/api` path and
 * `(web)` for everything else the public port serves. Never the path itself: a label is a
 * time series of its own, and a path can hold a card number.
 */
export function routeLabel(apiRoute: string | undefined, url: string): string {
  if (apiRoute !== undefined) return apiRoute.slice(apiRoute.indexOf(' ') + 1);
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  if (path === '/healthz' || path === '/readyz') return path;
  return /^\/api(?:\/|$)/i.test(path) ? '(unmatched)' : '(web)';
}

/**
 * The status a request is logged and counted with when its connection closed before the
 * response finished (the browser navigated away, a fetch was cancelled, a download stopped, or
 * a shutdown's grace period ran out), with no error of ours: nginx's "client closed request".
 * Never sent to anyone; without it such a request would count as the 200 Node presets.
 */
export const CLIENT_CLOSED = 499;

/**
 * One structured line per request, written when the response finishes (or the connection
 * closes first): `req` (picked explicitly: id, method, the endpoint for an API call,
 * the path without its query, actor, address, trace id; never headers or a body),
 * `res.statusCode`, `responseTime`, and `err` on a 5xx. The same moment feeds the request
 * metrics (count and duration by route template and status, 429s by code). The logger's redact paths still cover anything logged
 * by mistake.
 *
 * A request whose connection closed before its response finished, with no error of ours, is
 * "request aborted" with `aborted: true` and status `CLIENT_CLOSED` (499), in the line and in
 * the metrics' `status` label, so it is neither a success nor one of our failures; when the
 * headers had already gone out (a download cut part-way), `res.sentStatusCode` says with what.
 * One that failed on our side after its headers (`res.err`) stays an error with its status.
 *
 * Hand-rolled rather than pino-http: that middleware builds two child loggers (serializing the
 * whole request into bindings) and three listeners per request, a measurable share of a
 * proxied read's CPU, for a line this one writes directly.
 */
export function httpLogger(logger: Logger, metrics?: Metrics): RequestHandler {
  // The request line is built here from picked fields (no headers, no body, nothing nested to
  // hide), so it skips the redaction pass, which was most of a line's cost. Error lines, which
  // carry an error object, still go through the redacting logger.
  const lines = logger.child({}, { redact: { paths: [], censor: '[redacted]' } });
  return (req, res, next) => {
    const started = performance.now();
    let logged = false;
    const done = () => {
      if (logged) return;
      logged = true;
      res.off('finish', done);
      res.off('close', done);
      const elapsed = performance.now() - started;
      const url = req.originalUrl ?? req.url ?? '';
      const aborted = !res.writableFinished && !res.err;
      const status = aborted ? CLIENT_CLOSED : res.statusCode;
      if (metrics) {
        const route = routeLabel(req.apiRoute, url);
        metrics.observeRequest(req.method, route, status, elapsed / 1000);
        if (res.statusCode === 429) metrics.rateLimited(route, res.errorCode ?? 'unknown');
      }
      const line: Record<string, unknown> = {
        req: {
          id: req.requestId,
          method: req.method,
          route: req.apiRoute,
          path: pathForLog(url),
          actor: req.actor?.email,
          remoteAddress: req.ip,
          traceId: req.trace?.traceId,
        },
        res:
          aborted && res.headersSent
            ? { statusCode: status, sentStatusCode: res.statusCode }
            : { statusCode: status },
        responseTime: Math.round(elapsed),
      };
      if (aborted) {
        line.aborted = true;
        lines.info(line, 'request aborted');
      } else if (res.err || res.statusCode >= 500) {
        line.err = res.err ?? new Error(`failed with status code ${res.statusCode}`);
        logger.error(line, 'request errored');
      } else {
        lines[res.statusCode >= 400 ? 'warn' : 'info'](line, 'request completed');
      }
    };
    res.on('finish', done);
    res.on('close', done);
    next();
  };
}
