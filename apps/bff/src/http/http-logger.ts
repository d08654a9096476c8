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
        logger[res.statusCode >= 400 ? 'warn' : 'info'](line, 'request aborted');
      } else {
        logger[res.statusCode >= 400 ? 'warn' : 'info'](line, 'request completed');
      }
    };
    res.on('finish', done);
    res.on('close', done);
    next();
  };
}
