import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorRequestHandler, Express, Request, RequestHandler, Response } from 'express';

export type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;
/** The API: answers, or rejects with an error for the error handler. */
export type ApiPipeline = (req: Request, res: Response) => Promise<void>;

const apiPath = /^\/api(?:\/|$)/i;

/**
 * The server's one request listener. Pages and assets go through the Express app. API calls
 * get Express's own request and response objects (the app's `request`/`response` prototypes,
 * so `req.query`, `req.ip` and `res.cookie` follow the app's settings) but skip its router and
 * final handler: the API has a single route table of its own (`createApiRouter`), and
 * Express's per-request routing cost a measurable share of a read (bench/report.md).
 * `steps` are the per-request middlewares every response gets (request id, log line,
 * security headers); they run in order, then the API, and any error goes to `onError`.
 */
export function createRequestListener(options: {
  app: Express;
  steps: RequestHandler[];
  api: ApiPipeline;
  onError: ErrorRequestHandler;
}): RequestListener {
  const { app, steps, api, onError } = options;
  return (incoming, outgoing) => {
    const req = adopt(app, incoming, outgoing);
    if (!apiPath.test(req.path)) {
      app(incoming, outgoing);
      return;
    }
    const res = req.res as Response;
    const fail = (error: unknown) => {
      onError(error, req, res, () => {
        if (!res.headersSent) res.statusCode = 500;
        res.end();
      });
    };
    let index = 0;
    const next = (error?: unknown) => {
      if (error !== undefined) return fail(error);
      const step = steps[index++];
      try {
        if (step) step(req, res, next);
        else api(req, res).catch(fail);
      } catch (thrown) {
        fail(thrown);
      }
    };
    next();
  };
}

/** What Express's `app.handle` does to a request before routing it. */
function adopt(app: Express, incoming: IncomingMessage, outgoing: ServerResponse): Request {
  const req = incoming as Request;
  const res = outgoing as Response;
  req.res = res;
  res.req = req;
  Object.setPrototypeOf(req, app.request);
  Object.setPrototypeOf(res, app.response);
  res.locals ??= Object.create(null);
  return req;
}
