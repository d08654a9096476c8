import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request } from 'express';
import type { Logger } from 'pino';
import { pinoHttp } from 'pino-http';

/**
 * One structured line per request. Serializers pick fields explicitly (never all headers, never
 * a body), and the logger's redact paths cover anything logged by mistake.
 */
export function httpLogger(logger: Logger) {
  return pinoHttp({
    logger,
    genReqId: (req) => (req as Request).requestId,
    customLogLevel: (_req, res, error) => {
      if (error || res.statusCode >= 500) return 'error';
      if (res.statusCode >= 400) return 'warn';
      return 'info';
    },
    serializers: {
      req: (req: IncomingMessage & { id?: string; raw?: Request }) => {
        const raw = (req.raw ?? req) as Request;
        return {
          id: req.id,
          method: req.method,
          url: raw.originalUrl ?? req.url,
          actor: raw.actor?.email,
          remoteAddress: raw.ip,
        };
      },
      res: (res: ServerResponse) => ({ statusCode: res.statusCode }),
    },
  });
}
