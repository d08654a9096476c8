import { describe, expect, it } from 'vitest';
import { type ApiRoutes, createApiRouter } from './api-router';
import { createRouteMatcher } from './route-match';
import { type RouteRule, routeTable } from './route-table';

const row = (method: RouteRule['method'], path: string): RouteRule => ({
  method,
  path,
  access: 'signedIn',
  example: path,
  mutation: method !== 'GET',
});

describe('route matching', () => {
  const match = createRouteMatcher();

  it('finds every route-table row from its example path, with its parameters', () => {
    for (const rule of routeTable) {
      const path = rule.example.split('?')[0]?.replace(/\{[^}]+\}/g, 'abc-123') as string;
      const found = match(rule.method, path);
      expect(found?.rule).toBe(rule);
      expect(found?.key).toBe(`${rule.method} ${rule.path}`);
      if (rule.path.includes(':id')) expect(found?.params).toEqual({ id: 'abc-123' });
    }
  });

  it('prefers a literal segment over a parameter in the same place', () => {
    expect(match('GET', '/api/transactions/export.csv')?.rule.path).toBe(
      '/api/transactions/export.csv',
    );
    expect(match('GET', '/api/transactions/tx-1')?.params).toEqual({ id: 'tx-1' });
  });

  it('is strict: case, trailing slash, empty parameter, extra segment, method', () => {
    for (const [method, path] of [
      ['GET', '/API/cards'],
      ['GET', '/api/cards/'],
      ['GET', '/api/cards//reveal'],
      ['GET', '/api/cards/c1/extra'],
      ['DELETE', '/api/cards'],
      ['PUT', '/api/cards/c1'],
    ] as const) {
      expect(match(method, path), `${method} ${path}`).toBeUndefined();
    }
    expect(match('HEAD', '/api/cards')?.rule.method).toBe('GET');
  });

  it('decodes parameters, and a malformed escape is a 400, not a crash', () => {
    expect(match('GET', '/api/cards/a%20b')?.params).toEqual({ id: 'a b' });
    expect(() => match('GET', '/api/cards/%E0%A4%A')).toThrow(
      expect.objectContaining({ status: 400 }),
    );
  });
});

describe('the API router', () => {
  const table = [row('GET', '/api/things'), row('POST', '/api/things')];
  const deps = (routes: ApiRoutes[]) => ({
    sessions: {} as never,
    allowedOrigins: [],
    logger: { warn: () => undefined },
    authorize: { check: async () => undefined, refuseForeignOrigin: async () => never() },
    routes,
    table,
  });
  const handler = async () => undefined;
  const never = (): never => {
    throw new Error('not called when the router is built');
  };

  it('refuses to start when a row has no handler', () => {
    expect(() => createApiRouter(deps([{ 'GET /api/things': handler }]))).toThrow(
      'no handler for the route-table row POST /api/things',
    );
  });

  it('refuses to start when a handler has no row', () => {
    expect(() =>
      createApiRouter(
        deps([
          { 'GET /api/things': handler, 'POST /api/things': handler },
          { 'DELETE /api/things': handler },
        ]),
      ),
    ).toThrow('handlers without a route-table row: DELETE /api/things');
  });

  it('refuses two handlers for one row', () => {
    expect(() =>
      createApiRouter(
        deps([
          { 'GET /api/things': handler, 'POST /api/things': handler },
          { 'GET /api/things': handler },
        ]),
      ),
    ).toThrow('two handlers for GET /api/things');
  });
});
