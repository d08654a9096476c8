import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import { holdsCardNumber, withCardNumbersMasked } from '../platform/security/card-number-ids';

declare module 'node:http' {
  interface ServerResponse {
    /** An error to attach to the request's log line (set by the error middleware on 5xx). */
    err?: Error;
  }
}

declare global {
  namespace Express {
    interface Request {
      /** The route-table row an API call matched (`PATCH /api/cards/:id`), for its log line. */
      apiRoute?: string;
    }
  }
}

/** Could hold a card number: 13 digits in a row, perhaps grouped with spaces or dashes. */
const longDigitRun = /\d(?:[ -]?\d){12}/;

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
  return longDigitRun.test(path) ? withCardNumbersMasked(path) : path;
}

/**
 * One structured line per request, written when the response finishes (or the connection
 * closes first): `req` (picked explicitly: id, method, the route-table row for an API call,
 * the path without its query, actor, address; never headers or a body), `res.statusCode`,
 * `responseTime`, and `err` on a 5xx. The logger's redact paths still cover anything logged
 * by mistake.
 *
 * Hand-rolled rather than pino-http: that middleware builds two child loggers (serializing the
 * whole request into bindings) and three listeners per request, a measurable share of a
 * proxied read's CPU, for a line this one writes directly.
 */
export function httpLogger(logger: Logger): RequestHandler {
  // The request line is built here from picked fields (no headers, no body, nothing nested to
  // hide), so it skips the redaction pass, which was most of a line's cost. Error lines, which
  // carry an error object, still go through the redacting logger.
  const lines = logger.child({}, { redact: { paths: [], censor: '[redacted]' } });
  return (req, res, next) => {
    const started = Date.now();
    let logged = false;
    const done = () => {
      if (logged) return;
      logged = true;
      res.off('finish', done);
      res.off('close', done);
      const line: Record<string, unknown> = {
        req: {
          id: req.requestId,
          method: req.method,
          route: req.apiRoute,
          // API calls skip Express's router, which is what sets `originalUrl`.
          path: pathForLog(req.originalUrl ?? req.url ?? ''),
          actor: req.actor?.email,
          remoteAddress: req.ip,
        },
        res: { statusCode: res.statusCode },
        responseTime: Date.now() - started,
      };
      if (res.err || res.statusCode >= 500) {
        line.err = res.err ?? new Error(`failed with status code ${res.statusCode}`);
        logger.error(line, 'request errored');
      } else if (!res.writableFinished) {
        lines[res.statusCode >= 400 ? 'warn' : 'info'](line, 'request aborted');
      } else {
        lines[res.statusCode >= 400 ? 'warn' : 'info'](line, 'request completed');
      }
    };
    res.on('finish', done);
    res.on('close', done);
    next();
  };
}
