import type { RequestHandler } from 'express';
import type { Logger } from 'pino';

declare module 'node:http' {
  interface ServerResponse {
    /** An error to attach to the request's log line (set by the error middleware on 5xx). */
    err?: Error;
  }
}

/**
 * One structured line per request, written when the response finishes (or the connection
 * closes first), with the same fields pino-http wrote: `req` (picked explicitly: never all
 * headers, never a body), `res.statusCode`, `responseTime`, and `err` on a 5xx. The logger's
 * redact paths still cover anything logged by mistake.
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
          url: req.originalUrl,
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
