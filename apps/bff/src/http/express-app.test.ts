// The BFF is an ordinary Express app: the API is one `express.Router()` mounted at /api, so
// what Express gives a handler (`originalUrl`, `baseUrl`, `next`, `app`) is there, and a
// middleware added with `app.use` in front of it sees API calls as it sees pages.
import express, { type Request } from 'express';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Endpoint, type Feature, routeOf } from '../core/endpoint';
import type { SessionService } from '../platform/sessions/session-service';
import { startTestApp, type TestApp } from '../test/harness';
import { apiEndpoints, apiFeatures } from './api-endpoints';
import { createApiRouter } from './api-router';
import type { Authorizer } from './authorize';

describe('a middleware added with app.use', () => {
  const seen: { originalUrl: string; path: string }[] = [];
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      sim: { transactions: 5 },
      mount: (bff) => {
        const outer = express();
        outer.use((req, res, next) => {
          seen.push({ originalUrl: req.originalUrl, path: req.path });
          res.setHeader('X-Outer', 'ran');
          next();
        });
        outer.use(bff);
        return outer;
      },
    });
  });
  afterAll(() => t.close());

  it('reaches every /api call, answered or refused, as it reaches pages', async () => {
    const finance = await t.signIn('finance');
    const calls = [
      t.request.get('/api/meta').set(t.apiHeaders()),
      t.request.get('/api/cards?status=active').set(finance.headers()),
      t.request.get('/api/cards'), // no X-CSRF: refused
      t.request.get('/api/no-such-thing').set(finance.headers()),
      t.request.get('/cards').set('Accept', 'text/html'),
    ];
    const answers = await Promise.all(calls);
    expect(answers.map((r) => r.status)).toEqual([200, 200, 401, 404, 200]);
    for (const res of answers) expect(res.headers['x-outer']).toBe('ran');
    expect(seen.map((s) => s.originalUrl)).toEqual(
      expect.arrayContaining([
        '/api/meta',
        '/api/cards?status=active',
        '/api/cards',
        '/api/no-such-thing',
        '/cards',
      ]),
    );
    // The BFF's own middlewares ran inside too: the request id, the security headers.
    for (const res of answers) {
      expect(res.headers['x-request-id']).toMatch(/\S/);
      expect(res.headers['content-security-policy']).toContain("default-src 'self'");
    }
  });
});

describe('every handler', () => {
  /** Each endpoint's handler replaced by one that answers with what Express gave it. */
  const probes = apiFeatures.map(
    (feature): Feature<unknown, undefined> => ({
      name: feature.name,
      services: () => undefined,
      endpoints: feature.endpoints.map(
        (endpoint): Endpoint => ({
          ...endpoint,
          // What the handler is given is the question here, not what the request carried.
          body: undefined,
          textBody: undefined,
          fileBody: undefined,
          jsonLimitBytes: undefined,
          response: 'stream',
          handler: ({ req, res }: { req: Request; res: express.Response }) => {
            res.json({
              route: routeOf(endpoint),
              originalUrl: req.originalUrl,
              baseUrl: req.baseUrl,
              routePath: req.route?.path,
              hasNext: typeof req.next === 'function',
              sameApp: req.app === app,
            });
          },
        }),
      ),
    }),
  );
  const admitted = {
    load: async (req: Request) => {
      req.actor = { email: 'ada@example.test', role: 'admin' };
      return undefined;
    },
  } as unknown as SessionService;
  const allowed: Authorizer = {
    check: async () => {},
    refuseForeignOrigin: async () => {
      throw new Error('not expected');
    },
  };
  const app = express();
  app.use(
    '/api',
    createApiRouter({
      sessions: admitted,
      allowedOrigins: ['http://localhost:3000'],
      logger: { warn: () => {} },
      authorize: allowed,
      features: probes,
      deps: {},
    }),
  );

  it.each(apiEndpoints.map((e) => [routeOf(e), e] as const))(
    '%s gets req.originalUrl, req.baseUrl, req.next and req.app from Express',
    async (route, endpoint) => {
      const url = `${endpoint.example.replace(/\{\w+\}/g, 'id_example')}`;
      const method = endpoint.method.toLowerCase() as 'get' | 'post' | 'patch' | 'delete';
      const res = await supertest(app)
        [method](url)
        .set({ 'X-CSRF': '1', Origin: 'http://localhost:3000' });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({
        route,
        originalUrl: url,
        baseUrl: '/api',
        routePath: endpoint.path,
        hasNext: true,
        sameApp: true,
      });
    },
  );
});
