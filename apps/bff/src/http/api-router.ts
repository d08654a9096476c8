import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import type { SessionService } from '../platform/sessions/session-service';
import { AppError } from './app-error';
import type { Authorizer } from './authorize';
import { createCsrfCheck } from './csrf';
import { createJsonBodyReader } from './json-body';
import type { ApiPipeline } from './request-listener';
import { createRouteMatcher } from './route-match';
import { type HttpMethod, type RouteRule, routeTable } from './route-table';
import { setNoStore } from './security-headers';

/** A route-table row's key: `GET /api/cards/:id`. */
export type RouteKey = `${HttpMethod} /api${string}`;
export type ApiHandler = (req: Request, res: Response) => void | Promise<void>;
/** What a feature answers: handlers keyed by their route-table row. */
export type ApiRoutes = Partial<Record<RouteKey, ApiHandler>>;

export const routeKey = (rule: Pick<RouteRule, 'method' | 'path'>) =>
  `${rule.method} ${rule.path}` as RouteKey;

export interface ApiRouterDeps {
  sessions: SessionService;
  allowedOrigins: readonly string[];
  /** For the reason a mutation's Origin was refused. */
  logger: Pick<Logger, 'warn'>;
  authorize: Authorizer;
  /** Every feature's handlers; together they must answer exactly the route table's rows. */
  routes: ApiRoutes[];
  table?: readonly RouteRule[];
}

/**
 * Everything under /api (see `createRequestListener`), with the checks in a fixed order, cheapest first:
 * no-store, `X-CSRF` (and Origin on mutations), the session, the route-table row (none → 404),
 * its access rule, ids and rate limits, the strict JSON body, then the row's handler. A
 * mutation from a foreign Origin goes no further than reading the session (without extending
 * it) to record who tried. The route table is the router: a handler without a row, or a row
 * without a handler, fails at start-up, so nothing is reachable that the authorization matrix
 * does not cover.
 */
export function createApiRouter(deps: ApiRouterDeps): ApiPipeline {
  const table = deps.table ?? routeTable;
  const handlers = collectHandlers(table, deps.routes);
  const match = createRouteMatcher(table);
  const checkCsrf = createCsrfCheck(deps.allowedOrigins, deps.logger);
  const readBody = createJsonBodyReader();

  return async (req, res) => {
    const path = req.path;
    setNoStore(res);
    // Cheap checks first: a forged or anonymous request is refused before its body is read.
    const found = match(req.method, path);
    // A navigation row is a GET (never a mutation) that a browser cannot add a header to.
    const originOk = found?.rule.navigation ? true : checkCsrf(req);
    if (found) {
      req.apiRoute = found.key;
      req.params = found.params;
    }
    if (!originOk) {
      // Only to know who tried: a refused request is not activity.
      await deps.sessions.load(req, false);
      await deps.authorize.refuseForeignOrigin(found?.rule, req);
    }
    await deps.sessions.load(req, !isBackgroundPoll(req, path));
    if (!found) throw new AppError(404, 'not_found', 'There is no such API endpoint.');
    await deps.authorize.check(found.rule, req);
    await readBody(req, res);
    await (handlers.get(found.rule) as ApiHandler)(req, res);
  };
}

/**
 * A background "who am I" poll (GET /api/session with `X-Background: 1`) reads the session
 * without counting as activity, so an open but unused tab still times out after 15 minutes.
 */
function isBackgroundPoll(req: Request, path: string): boolean {
  return req.method === 'GET' && path === '/api/session' && req.get('x-background') === '1';
}

function collectHandlers(table: readonly RouteRule[], routes: ApiRoutes[]) {
  const byKey = new Map<string, ApiHandler>();
  for (const group of routes) {
    for (const [key, handler] of Object.entries(group)) {
      if (!handler) continue;
      if (byKey.has(key)) throw new Error(`two handlers for ${key}`);
      byKey.set(key, handler);
    }
  }
  const handlers = new Map<RouteRule, ApiHandler>();
  for (const rule of table) {
    const handler = byKey.get(routeKey(rule));
    if (!handler) throw new Error(`no handler for the route-table row ${routeKey(rule)}`);
    handlers.set(rule, handler);
    byKey.delete(routeKey(rule));
  }
  const extra = [...byKey.keys()];
  if (extra.length) throw new Error(`handlers without a route-table row: ${extra.join(', ')}`);
  return handlers;
}
