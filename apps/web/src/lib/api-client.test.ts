import { HttpResponse, http } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { apiError, server } from '../test/server';
import { apiJson, apiRequest, setUnauthenticatedListener } from './api-client';
import { ApiError, apiProblem } from './api-error';

afterEach(() => setUnauthenticatedListener(undefined));

describe('api client', () => {
  it('sends X-CSRF, same-origin credentials, JSON, and leaves undefined query values out', async () => {
    let seen: Request | undefined;
    server.use(
      http.post('/api/thing', ({ request }) => {
        seen = request;
        return HttpResponse.json({ ok: true });
      }),
    );
    const answer = await apiJson<{ ok: boolean }>('/api/thing', {
      method: 'POST',
      body: { a: 1 },
      query: { x: 'y', skip: undefined, n: 3 },
    });
    expect(answer).toEqual({ ok: true });
    expect(seen?.headers.get('x-csrf')).toBe('1');
    expect(seen?.headers.get('content-type')).toBe('application/json');
    expect(seen?.credentials).toBe('same-origin');
    expect(new URL(seen?.url ?? '').search).toBe('?x=y&n=3');
    expect(await seen?.json()).toEqual({ a: 1 });
  });

  it('turns the error body into a typed ApiError', async () => {
    server.use(
      http.get('/api/thing', () =>
        apiError(429, 'rate_limited', 'Slow down', { retryAfterSeconds: 9 }),
      ),
    );
    const error = await apiRequest('/api/thing').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      status: 429,
      code: 'rate_limited',
      message: 'Slow down',
      requestId: 'req-rate_limited',
      retryAfterSeconds: 9,
      problem: { type: '/problems/rate_limited', title: 'Too many requests', detail: 'Slow down' },
    });
  });

  it('parses the problem with the shared union: card_changed comes with its typed `current`', async () => {
    const current = { name: 'Travel', minimumCents: null, maximumCents: 50_000 };
    server.use(
      http.patch('/api/cards/c1', () =>
        apiError(409, 'card_changed', 'Someone else saved.', { current }),
      ),
    );
    const error = await apiRequest('/api/cards/c1', { method: 'PATCH' }).catch((e: unknown) => e);
    expect(apiProblem(error, 'card_changed')?.current).toEqual(current);
    expect(apiProblem(error, 'step_up_required')).toBeUndefined();
    expect(apiProblem(new Error('x'), 'card_changed')).toBeUndefined();
  });

  it('gives the offered second factors of step_up_required and second_factor_required', async () => {
    const secondFactor = { methods: ['passkey' as const], passkeyOptions: { challenge: 'c' } };
    server.use(
      http.post('/api/session', () =>
        apiError(401, 'second_factor_required', 'Add a second factor.', { secondFactor }),
      ),
    );
    const error = await apiRequest('/api/session', { method: 'POST' }).catch((e: unknown) => e);
    expect(apiProblem(error, 'second_factor_required', 'step_up_required')?.secondFactor).toEqual(
      secondFactor,
    );
  });

  it('a JSON body outside the union (card_changed without current, current on another code, an unknown code, the old `message` shape) is not taken as a problem', async () => {
    const problem = (code: string, status: number) => ({
      type: `/problems/${code}`,
      title: 'T',
      status,
      code,
      detail: 'D',
      requestId: 'r-x',
    });
    const current = { name: 'n', minimumCents: null, maximumCents: null };
    const bodies = [
      problem('card_changed', 409),
      { ...problem('not_found', 404), current },
      problem('no_such_code', 400),
      { status: 400, code: 'invalid_body', message: 'old shape', requestId: 'r-x' },
    ];
    for (const [i, body] of bodies.entries()) {
      server.use(
        http.get(`/api/odd/${i}`, () =>
          HttpResponse.json(body, {
            status: body.status,
            headers: { 'Content-Type': 'application/problem+json', 'X-Request-Id': 'r-h' },
          }),
        ),
      );
      const error = await apiRequest(`/api/odd/${i}`).catch((e: unknown) => e);
      expect(error).toMatchObject({ status: body.status, code: 'http_error', requestId: 'r-h' });
      expect((error as ApiError).problem).toBeUndefined();
      expect(apiProblem(error, 'card_changed', 'not_found', 'invalid_body')).toBeUndefined();
    }
  });

  it('copes with an error that is not the documented shape (an HTML page, Retry-After header)', async () => {
    server.use(
      http.get(
        '/api/thing',
        () =>
          new HttpResponse('<html>Bad gateway</html>', {
            status: 503,
            statusText: 'Service Unavailable',
            headers: { 'Retry-After': '4', 'X-Request-Id': 'r-1' },
          }),
      ),
    );
    const error = await apiRequest('/api/thing').catch((e: unknown) => e);
    expect(error).toMatchObject({
      status: 503,
      code: 'http_error',
      requestId: 'r-1',
      retryAfterSeconds: 4,
    });
  });

  it('takes the wait from Retry-After when the error body does not give one, the body’s when it does', async () => {
    server.use(
      http.get('/api/header-only', () => {
        const res = apiError(429, 'rate_limited', 'Slow down');
        res.headers.set('Retry-After', '5');
        return res;
      }),
      http.get('/api/both', () => {
        const res = apiError(429, 'rate_limited', 'x', { retryAfterSeconds: 2 });
        res.headers.set('Retry-After', '9');
        return res;
      }),
    );
    const before = Date.now();
    const headerOnly = await apiRequest('/api/header-only').catch((e: unknown) => e);
    expect(headerOnly).toMatchObject({ code: 'rate_limited', retryAfterSeconds: 5 });
    expect((headerOnly as ApiError).receivedAt).toBeGreaterThanOrEqual(before);
    await expect(apiRequest('/api/both')).rejects.toMatchObject({ retryAfterSeconds: 2 });
  });

  it('reports a dropped connection as a network error', async () => {
    server.use(http.get('/api/thing', () => HttpResponse.error()));
    const error = await apiRequest('/api/thing').catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 0, code: 'network_error' });
  });

  it('tells the listener about 401 unauthenticated only', async () => {
    const listener = vi.fn();
    setUnauthenticatedListener(listener);
    server.use(
      http.get('/api/a', () => apiError(401, 'unauthenticated', 'Sign in')),
      http.get('/api/b', () =>
        apiError(401, 'step_up_required', 'Code please', { secondFactor: { methods: ['totp'] } }),
      ),
    );
    await apiRequest('/api/b').catch(() => undefined);
    expect(listener).not.toHaveBeenCalled();
    await apiRequest('/api/a').catch(() => undefined);
    expect(listener).toHaveBeenCalledTimes(1);
  });

  it('tells the listener when the server ended the session after wrong codes (401 session_ended)', async () => {
    const listener = vi.fn();
    setUnauthenticatedListener(listener);
    server.use(
      http.post('/api/x', () => apiError(401, 'invalid_totp', 'Wrong code')),
      http.post('/api/y', () => apiError(401, 'session_ended', 'Signed out')),
    );
    await apiRequest('/api/x', { method: 'POST' }).catch(() => undefined);
    expect(listener).not.toHaveBeenCalled();
    await apiRequest('/api/y', { method: 'POST' }).catch(() => undefined);
    expect(listener).toHaveBeenCalledWith(expect.objectContaining({ code: 'session_ended' }));
  });

  it('says so when a success answer is not JSON', async () => {
    server.use(http.get('/api/thing', () => new HttpResponse('not json', { status: 200 })));
    await expect(apiJson('/api/thing')).rejects.toMatchObject({ code: 'invalid_response' });
  });
});
