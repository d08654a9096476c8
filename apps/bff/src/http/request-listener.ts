import { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorRequestHandler, Express, Request, RequestHandler, Response } from 'express';

export type RequestListener = ((req: IncomingMessage, res: ServerResponse) => void) & {
  /**
   * Pass to `http.createServer`: the server then builds each request and response with the
   * app's Express prototypes already in place, so no request changes its prototype (see
   * `adopt`). Without them the listener still works, adopting each request as Express does.
   */
  serverOptions: {
    IncomingMessage: typeof IncomingMessage;
    ServerResponse: typeof ServerResponse;
  };
};
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
  const serverOptions = expressClasses(app);
  const listener = (incoming: IncomingMessage, outgoing: ServerResponse) => {
    const req =
      incoming instanceof serverOptions.IncomingMessage
        ? link(incoming, outgoing)
        : adopt(app, incoming, outgoing);
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
  return Object.assign(listener, { serverOptions });
}

/**
 * Request and response classes whose instances inherit from the app's `request`/`response`
 * (and through them from Node's classes), built once. Changing an object's prototype after
 * it is made, as `adopt` must, costs a measurable share of a proxied read at one connection
 * and leaves Node's HTTP code seeing objects of a shape it was not optimized for.
 */
function expressClasses(app: Express): RequestListener['serverOptions'] {
  class AppRequest extends IncomingMessage {}
  class AppResponse<R extends IncomingMessage = IncomingMessage> extends ServerResponse<R> {}
  Object.setPrototypeOf(AppRequest.prototype, app.request);
  Object.setPrototypeOf(AppResponse.prototype, app.response);
  return { IncomingMessage: AppRequest, ServerResponse: AppResponse };
}

/** What Express's `app.handle` does to a request before routing it, prototypes aside. */
function link(incoming: IncomingMessage, outgoing: ServerResponse): Request {
  const req = incoming as Request;
  const res = outgoing as Response;
  req.res = res;
  res.req = req;
  res.locals ??= Object.create(null);
  return req;
}

/** What Express's `app.handle` does to a request before routing it. */
function adopt(app: Express, incoming: IncomingMessage, outgoing: ServerResponse): Request {
  Object.setPrototypeOf(incoming, app.request);
  Object.setPrototypeOf(outgoing, app.response);
  return link(incoming, outgoing);
}
