import express, { type Request, type RequestHandler, type Router } from 'express';
import type { Logger } from 'pino';
import { AppError } from '../core/app-error';
import { type Endpoint, type Feature, routeOf } from '../core/endpoint';
import { parseBody, parseParams, parseQuery, repeatableKeys } from '../core/validate';
import type { SessionService } from '../platform/sessions/session-service';
import type { Authorizer } from './authorize';
import { createCsrfCheck } from './csrf';
import { createJsonBodyReader } from './json-body';
import { setNoStore } from './security-headers';
import { createFileBodyReader, createTextBodyReader } from './text-body';

export interface ApiRouterDeps<D> {
  sessions: SessionService;
  allowedOrigins: readonly string[];
  /** For the reason a mutation's Origin was refused. */
  logger: Pick<Logger, 'warn'>;
  authorize: Authorizer;
  /** The features whose endpoints make the API, and what their services are built from. */
  features: readonly Feature<D, unknown>[];
  deps: D;
}

/**
 * The router mounted at `/api`: one Express route per endpoint declaration, each running the
 * same steps in the same order, cheapest first: `X-CSRF` (and Origin on mutations), the
 * session, the declaration's access rule, ids and rate limits, the strict JSON body (or the
 * text body of its declared type), the
 * declaration's checks of params, query and body, its handler, the check of its reply. A
 * mutation from a foreign Origin goes no further than reading the session (without extending
 * it) to record who tried. A path no declaration matches is a 404 after the same header and
 * session steps, so nothing answers under /api that a declaration does not describe.
 */
export function createApiRouter<D>(options: ApiRouterDeps<D>): Router {
  const checkCsrf = createCsrfCheck(options.allowedOrigins, options.logger);
  const readBody = createJsonBodyReader();
  const { sessions, authorize } = options;

  /** The header, Origin and session steps every /api request takes, matched or not. */
  const admit = async (req: Request, endpoint: Endpoint | undefined) => {
    // A navigation is a GET (never a mutation) that a browser cannot add a header to.
    const originOk = endpoint?.navigation ? true : checkCsrf(req);
    if (!originOk) {
      // Only to know who tried: a refused request is not activity.
      await sessions.load(req, false);
      await authorize.refuseForeignOrigin(endpoint, req);
    }
    await sessions.load(req, !isBackgroundPoll(req));
  };

  const router = express.Router({ caseSensitive: true, strict: true });
  router.use((_req, res, next) => {
    setNoStore(res);
    next();
  });
  // Each feature's services, built once.
  const built = new Map(options.features.map((f) => [f, f.services(options.deps)]));
  for (const { feature, endpoint } of inRouteOrder(options.features)) {
    const services = built.get(feature);
    const route = routeOf(endpoint);
    const repeatable = endpoint.query ? repeatableKeys(endpoint.query) : undefined;
    const guard: RequestHandler = async (req, _res, next) => {
      req.apiRoute = route;
      await admit(req, endpoint);
      await authorize.check(endpoint, req);
      next();
    };
    const readThisBody = endpoint.textBody
      ? createTextBodyReader(endpoint.textBody.type, endpoint.textBody.limitBytes)
      : endpoint.fileBody
        ? createFileBodyReader(endpoint.fileBody.limitBytes, endpoint.fileBody.atOnce)
        : endpoint.jsonLimitBytes
          ? createJsonBodyReader(endpoint.jsonLimitBytes)
          : readBody;
    const body: RequestHandler = async (req, res, next) => {
      await readThisBody(req, res);
      next();
    };
    const handle: RequestHandler = async (req, res) => {
      const reply = await endpoint.handler({
        req,
        res,
        services,
        params: endpoint.params
          ? parseParams(endpoint.params, req.params as Record<string, string>)
          : {},
        // A navigation reads its query itself, to answer a bad one with a redirect too.
        query:
          endpoint.query && !endpoint.navigation
            ? parseQuery(endpoint.query, req, repeatable)
            : undefined,
        body:
          endpoint.body && !endpoint.handlerChecksBody ? parseBody(endpoint.body, req) : undefined,
      } as never);
      if (typeof endpoint.response === 'string') return;
      const checked = endpoint.response.safeParse(reply);
      if (!checked.success) {
        throw new Error(`${route} answered outside its response schema`, {
          cause: checked.error,
        });
      }
      if (checked.data === undefined) res.status(204).end();
      else res.status(endpoint.status ?? 200).json(checked.data);
    };
    router[lower[endpoint.method]](endpoint.path, guard, body, handle);
  }
  router.use(async (req, _res, next) => {
    await admit(req, undefined);
    next(new AppError(404, 'not_found', 'There is no such API endpoint.'));
  });
  return router;
}

const lower = { GET: 'get', POST: 'post', PUT: 'put', PATCH: 'patch', DELETE: 'delete' } as const;

/**
 * Every endpoint, literal paths before parameters where both could match
 * (`/transactions/export.csv` before `/transactions/:id`), as Express tries routes in order.
 */
function inRouteOrder<D>(features: readonly Feature<D, unknown>[]) {
  const all = features.flatMap((feature) =>
    feature.endpoints.map((endpoint) => ({ feature, endpoint })),
  );
  return all.sort((a, b) => literalRank(b.endpoint.path) - literalRank(a.endpoint.path));
}

/** How many leading segments are literal: more literal, more specific. */
function literalRank(path: string): number {
  let rank = 0;
  for (const segment of path.split('/').slice(1)) {
    if (segment.startsWith(':')) break;
    rank++;
  }
  return rank;
}

/**
 * A read the screen makes on its own (`X-Background: 1` on a GET: the "who am I" poll, the
 * bell's unread count every 30 s, the inbox while receipts are read) reads the session without
 * counting as activity, so an open but unused tab still times out after 15 minutes. A GET is
 * never a change, so a request that says it is one only shortens its own session.
 */
function isBackgroundPoll(req: Request): boolean {
  return req.method === 'GET' && req.get('x-background') === '1';
}
