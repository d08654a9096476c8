// The router built from endpoint declarations, on its own: how it orders routes, what it does
// with a reply, and which requests count as activity. Authorization and the session are stubs
// here (authorization-matrix.test.ts runs the real ones through the whole app).
import express, { type Request } from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Feature } from '../core/endpoint';
import { createLogger } from '../platform/logger';
import type { SessionService } from '../platform/sessions/session-service';
import { declaration } from '../test/declaration';
import { createApiRouter } from './api-router';
import type { Authorizer } from './authorize';
import { errorHandler } from './error-handler';
import { httpLogger } from './http-logger';
import { requestId } from './request-id';

const origin = 'http://localhost:3000';
const headers = { 'X-CSRF': '1', Origin: origin };

const thingSchema = z.object({ id: z.string(), name: z.string() });

/** A feature whose parameter route is declared before the literal one that it could swallow. */
type Deps = { reply: unknown };
const things: Feature<Deps, Deps> = {
  name: 'things',
  services: (deps) => deps,
  endpoints: [
    declaration<Deps>({
      method: 'GET',
      path: '/things/:id',
      summary: 'One thing',
      access: 'public',
      mutation: false,
      example: '/api/things/a',
      params: { id: z.string().regex(/^[a-z]+$/) },
      response: thingSchema,
      handler: ({ params }) => ({ id: (params as { id: string }).id, name: 'by id' }),
    }),
    declaration<Deps>({
      method: 'GET',
      path: '/things/export.csv',
      summary: 'Every thing, as CSV',
      access: 'public',
      mutation: false,
      example: '/api/things/export.csv',
      response: 'stream',
      handler: ({ res }) => {
        // Not JSON, and not checked as JSON.
        res.type('text/csv').send('id\na\n');
      },
    }),
    declaration<Deps>({
      method: 'GET',
      path: '/reply',
      summary: 'Whatever the test set',
      access: 'public',
      mutation: false,
      example: '/api/reply',
      response: thingSchema,
      handler: ({ services }) => services.reply,
    }),
    declaration<Deps>({
      method: 'DELETE',
      path: '/things/:id',
      summary: 'Remove a thing',
      access: 'public',
      mutation: true,
      example: '/api/things/a',
      params: { id: z.string() },
      response: z.object({ note: z.string() }).optional(),
      handler: () => undefined,
    }),
    declaration<Deps>({
      method: 'POST',
      path: '/session',
      summary: 'Sign in',
      access: 'public',
      mutation: true,
      example: '/api/session',
      response: z.object({ ok: z.boolean() }),
      handler: () => ({ ok: true }),
    }),
    declaration<Deps>({
      method: 'GET',
      path: '/session',
      summary: 'Who am I',
      access: 'public',
      mutation: false,
      example: '/api/session',
      response: z.object({ ok: z.boolean() }),
      handler: () => ({ ok: true }),
    }),
  ],
};

function appWith(reply: unknown = { id: 'a', name: 'x' }) {
  const loads: { path: string; touch: boolean }[] = [];
  const sessions = {
    load: async (req: Request, touch: boolean) => {
      loads.push({ path: req.originalUrl, touch });
      return undefined;
    },
  } as unknown as SessionService;
  const authorize: Authorizer = {
    check: async () => {},
    refuseForeignOrigin: async () => {
      throw new Error('not expected');
    },
  };
  const logs: string[] = [];
  const logger = createLogger('info', { write: (line: string) => void logs.push(line) });
  const app = express()
    .use(requestId(), httpLogger(logger))
    .use(
      '/api',
      createApiRouter({
        sessions,
        allowedOrigins: [origin],
        logger: { warn: () => {} },
        authorize,
        features: [things],
        deps: { reply },
      }),
    )
    .use(errorHandler(logger));
  return { app, loads, logs };
}

describe('the API router', () => {
  it('tries a literal path before a parameter that could match it, whatever the declaration order', async () => {
    const { app, logs } = appWith();
    const csv = await request(app).get('/api/things/export.csv').set(headers);
    expect(csv.status).toBe(200);
    expect(csv.text).toBe('id\na\n');
    // A streamed reply is the handler's own: nothing checks it as JSON after it was sent.
    expect(logs.join('\n')).not.toMatch(/request errored|response failed/);
    const one = await request(app).get('/api/things/abc').set(headers);
    expect(one.body).toEqual({ id: 'abc', name: 'by id' });
  });

  it('answers a path with a trailing slash, other case or unknown method as no endpoint', async () => {
    const { app } = appWith();
    for (const [method, path] of [
      ['get', '/api/things/abc/'],
      ['get', '/api/Things/abc'],
      ['patch', '/api/things/abc'],
      ['get', '/api/nothing'],
    ] as const) {
      const res = await request(app)[method](path).set(headers);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body).toMatchObject({
        code: 'not_found',
        detail: 'There is no such API endpoint.',
      });
    }
  });

  it('checks a path parameter against its schema: 400 invalid_path naming it', async () => {
    const { app } = appWith();
    const res = await request(app).get('/api/things/ABC').set(headers);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'invalid_path' });
    expect(res.body.detail).toMatch(/^"id" is not a valid id/);
  });

  it('sends a reply as its schema parsed it: a field it does not declare never leaves', async () => {
    const { app } = appWith({ id: 'a', name: 'x', secret: 'kept server-side' });
    const res = await request(app).get('/api/reply').set(headers);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: 'a', name: 'x' });
  });

  it('refuses to send a reply outside its schema: a 500 problem, the route named in the log only', async () => {
    const { app, logs } = appWith({ id: 'a' });
    const res = await request(app).get('/api/reply').set(headers);
    expect(res.status).toBe(500);
    expect(res.body).toMatchObject({ code: 'internal_error' });
    expect(JSON.stringify(res.body)).not.toContain('schema');
    expect(logs.join('\n')).toContain('GET /api/reply answered outside its response schema');
  });

  it('answers 204 with no body when the handler returns nothing its reply allows', async () => {
    const { app } = appWith();
    const res = await request(app).delete('/api/things/a').set(headers);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
  });

  it('counts a request as activity, except a GET the screen marks as background', async () => {
    const { app, loads } = appWith();
    await request(app)
      .get('/api/session')
      .set({ ...headers, 'X-Background': '1' });
    await request(app).get('/api/session').set(headers);
    await request(app)
      .post('/api/session')
      .set({ ...headers, 'X-Background': '1' });
    await request(app)
      .get('/api/things/abc')
      .set({ ...headers, 'X-Background': '1' });
    await request(app)
      .get('/api/nothing')
      .set({ ...headers, 'X-Background': '1' });
    expect(loads).toEqual([
      { path: '/api/session', touch: false },
      { path: '/api/session', touch: true },
      { path: '/api/session', touch: true },
      { path: '/api/things/abc', touch: false },
      { path: '/api/nothing', touch: false },
    ]);
  });
});
