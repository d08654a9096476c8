import { apiErrorBodySchema } from '@card-console/shared/api/error';
import express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AppError } from '../core/app-error';
import { createLogger } from '../platform/logger';
import { StoreUnavailableError } from '../platform/store-unavailable';
import { errorHandler, PROBLEM_CONTENT_TYPE } from './error-handler';
import { requestId } from './request-id';

const current = { name: 'Travel', minimumCents: null, maximumCents: 50_000 };

/** An app that throws what each path names, with the one error handler last. */
function app() {
  const throwing =
    (error: unknown): express.RequestHandler =>
    () => {
      throw error;
    };
  return express()
    .use(requestId())
    .get(
      '/card-changed',
      throwing(
        new AppError(409, 'card_changed', 'Someone else saved.', { extensions: { current } }),
      ),
    )
    .get('/not-found', throwing(new AppError(404, 'not_found', 'Not found.')))
    .get(
      '/busy',
      throwing(new AppError(429, 'rate_limited', 'Slow down.', { retryAfterSeconds: 7 })),
    )
    .get('/bug', throwing(new Error('SELECT * FROM secrets at /srv/bff/db.ts:12')))
    .get('/bug-with-status', throwing(Object.assign(new Error('upstream 503'), { status: 503 })))
    .get('/zod', throwing(z.object({ n: z.number() }).safeParse({ n: 'x' }).error))
    .get('/store', throwing(new StoreUnavailableError('postgres', 'get')))
    .get('/cards/:id', (req, res) => {
      res.json({ id: req.params.id });
    })
    .post('/json', express.json({ limit: 64 }), (_req, res) => {
      res.json({ ok: true });
    })
    .get('/half-sent', (_req, res, next) => {
      res.writeHead(200, { 'Content-Type': 'text/csv' });
      res.write('a,b\n');
      next(new Error('stream broke'));
    })
    .use(errorHandler(createLogger('silent')));
}

/** The answer is an RFC 9457 problem of the shared union, with the answer's request id. */
function problem(res: request.Response) {
  expect(res.headers['content-type']).toBe(`${PROBLEM_CONTENT_TYPE}; charset=utf-8`);
  const body = apiErrorBodySchema.parse(JSON.parse(res.text));
  expect(body.status).toBe(res.status);
  expect(body.requestId).toBe(res.headers['x-request-id']);
  return body;
}

describe('errorHandler: every error is an RFC 9457 problem (application/problem+json)', () => {
  it('card_changed carries its type, title, detail and `current`', async () => {
    const res = await request(app()).get('/card-changed');
    expect(res.status).toBe(409);
    expect(problem(res)).toEqual({
      type: '/problems/card_changed',
      title: 'Card changed meanwhile',
      status: 409,
      code: 'card_changed',
      detail: 'Someone else saved.',
      requestId: res.headers['x-request-id'],
      current,
    });
  });

  it('any other code carries the common members only', async () => {
    const res = await request(app()).get('/not-found');
    expect(res.status).toBe(404);
    expect(Object.keys(problem(res)).sort()).toEqual(
      ['code', 'detail', 'requestId', 'status', 'title', 'type'].sort(),
    );
  });

  it('a wait is in the body and in Retry-After', async () => {
    const res = await request(app()).get('/busy');
    expect(res.status).toBe(429);
    expect(res.headers['retry-after']).toBe('7');
    expect(problem(res)).toMatchObject({ code: 'rate_limited', retryAfterSeconds: 7 });
  });

  it('an unexpected error is a 500 that tells nothing of its cause, even one with a status', async () => {
    for (const path of ['/bug', '/bug-with-status']) {
      const res = await request(app()).get(path);
      expect(res.status).toBe(500);
      expect(problem(res)).toMatchObject({
        code: 'internal_error',
        type: '/problems/internal_error',
      });
      expect(res.text).not.toMatch(/SELECT|srv|db\.ts|upstream 503|stack/);
    }
  });

  it('a ZodError is a 400 naming the field; a store outage a 503 with a wait', async () => {
    const zod = await request(app()).get('/zod');
    expect(zod.status).toBe(400);
    expect(problem(zod)).toMatchObject({
      code: 'invalid_request',
      detail: expect.stringMatching(/^n: /),
    });
    const store = await request(app()).get('/store');
    expect(store.status).toBe(503);
    expect(store.headers['retry-after']).toBe('5');
    expect(problem(store)).toMatchObject({ code: 'store_unavailable', retryAfterSeconds: 5 });
  });

  it('a malformed % escape in a path parameter (Express raises a 400) is a bad_request problem', async () => {
    const ok = await request(app()).get('/cards/card%201');
    expect(ok.body).toEqual({ id: 'card 1' });
    const res = await request(app()).get('/cards/%E0%A4%A');
    expect(res.status).toBe(400);
    expect(problem(res)).toMatchObject({
      code: 'bad_request',
      detail: 'The request could not be understood.',
    });
    expect(res.text).not.toContain('Failed to decode');
  });

  it("body-parser's errors are problems: malformed JSON and an unknown charset 400, too large 413", async () => {
    const json = (body: string, type = 'application/json') =>
      request(app()).post('/json').set('Content-Type', type).send(body);
    const malformed = await json('{"a": ');
    expect(malformed.status).toBe(400);
    expect(problem(malformed)).toMatchObject({ code: 'invalid_json' });
    expect(malformed.text).not.toContain('Unexpected');
    const large = await json(JSON.stringify({ a: 'x'.repeat(200) }));
    expect(large.status).toBe(413);
    expect(problem(large)).toMatchObject({
      code: 'body_too_large',
      detail: expect.stringMatching(/KiB/),
    });
    const charset = await json('{}', 'application/json; charset=klingon');
    expect(charset.status).toBe(400);
    expect(problem(charset)).toMatchObject({ code: 'invalid_body' });
  });

  it('an unknown path that reaches it as a 404 from Express stays a 404 not_found', async () => {
    const notFound = Object.assign(new Error('Not Found'), { status: 404, expose: true });
    const res = await request(
      express()
        .use(requestId())
        .use((_req, _res, next) => next(notFound))
        .use(errorHandler(createLogger('silent'))),
    ).get('/x');
    expect(res.status).toBe(404);
    expect(problem(res)).toMatchObject({ code: 'not_found' });
  });

  it('an error after the headers went out breaks the response instead of appending a body', async () => {
    await expect(request(app()).get('/half-sent')).rejects.toThrow();
  });
});

describe('AppError: the code decides the extension members (compile-time)', () => {
  it('card_changed needs `current`; other codes take none', () => {
    // @ts-expect-error: card_changed without its current values
    new AppError(409, 'card_changed', 'Changed.');
    const secondFactor = { methods: [] };
    // @ts-expect-error: card_changed with another code's member
    new AppError(409, 'card_changed', 'Changed.', { extensions: { secondFactor } });
    // @ts-expect-error: a code without members of its own cannot take `current`
    new AppError(404, 'not_found', 'Not found.', { extensions: { current } });
    // @ts-expect-error: an unknown code
    new AppError(400, 'no_such_code', 'What?');
    const ok = new AppError(401, 'step_up_required', 'Confirm.', {
      extensions: { secondFactor: { methods: ['totp'] } },
    });
    expect(ok.extensions?.secondFactor.methods).toEqual(['totp']);
    expect(new AppError(404, 'not_found', 'Not found.').extensions).toBeUndefined();
  });
});
