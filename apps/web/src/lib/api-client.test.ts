import { HttpResponse } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { apiError, serve, server } from '../test/server';
import { api, apiFile, apiHref, setUnauthenticatedListener } from './api-client';
import { ApiError, apiProblem } from './api-error';

afterEach(() => setUnauthenticatedListener(undefined));

describe('api client', () => {
  it('sends X-CSRF, same-origin credentials, the query without undefined values, to the contract’s path', async () => {
    let seen: Request | undefined;
    server.use(
      serve('cards.list', ({ request }) => {
        seen = request;
        return HttpResponse.json({ items: [] });
      }),
    );
    const answer = await api('cards.list', {
      query: { status: 'active', cursor: undefined, sort: 'name' },
    });
    expect(answer).toEqual({ items: [] });
    expect(seen?.method).toBe('GET');
    expect(seen?.headers.get('x-csrf')).toBe('1');
    expect(seen?.credentials).toBe('same-origin');
    expect(new URL(seen?.url ?? '').pathname).toBe('/api/cards');
    expect(new URL(seen?.url ?? '').search).toBe('?status=active&sort=name');
  });

  it('fills the path’s parameters encoded, and sends the body as JSON with the contract’s method', async () => {
    let seen: Request | undefined;
    server.use(
      serve('cards.update', ({ request }) => {
        seen = request;
        return HttpResponse.json(card);
      }),
    );
    await api('cards.update', { params: { id: 'c/1 ?' }, body: { name: 'Travel' } });
    expect(seen?.method).toBe('PATCH');
    expect(new URL(seen?.url ?? '').pathname).toBe('/api/cards/c%2F1%20%3F');
    expect(seen?.headers.get('content-type')).toBe('application/json');
    expect(await seen?.json()).toEqual({ name: 'Travel' });
  });

  it('parses every answer with the endpoint’s response schema: fields it does not declare are dropped, an answer it does not hold is invalid_response', async () => {
    server.use(serve('cards.get', () => HttpResponse.json({ ...card, pan: '4111' })));
    expect(await api('cards.get', { params: { id: 'c1' } })).toEqual(card);
    server.use(serve('cards.get', () => HttpResponse.json({ ...card, last4: 4242 })));
    await expect(api('cards.get', { params: { id: 'c1' } })).rejects.toMatchObject({
      code: 'invalid_response',
    });
  });

  it('a 204 is undefined, where the contract says the endpoint answers nothing', async () => {
    server.use(serve('receipts.remove', () => new HttpResponse(null, { status: 204 })));
    await expect(
      api('receipts.remove', { params: { id: 't1', receiptId: 'r1' } }),
    ).resolves.toBeUndefined();
  });

  it('sends a file’s bytes and CSV text with their own types; a file answer is the response itself', async () => {
    const seen: Request[] = [];
    server.use(
      serve('receipts.upload', ({ request }) => {
        seen.push(request);
        return HttpResponse.json(
          {
            id: 'r1',
            fileName: 'a.pdf',
            mediaType: 'application/pdf',
            sizeBytes: 3,
            uploadedBy: 'ada@example.test',
            uploadedAt: '2026-11-01T00:00:00.000Z',
          },
          { status: 201 },
        );
      }),
      serve('receipts.download', () => new HttpResponse('pdf', { status: 200 })),
    );
    await api('receipts.upload', { params: { id: 't1' }, body: new Blob(['pdf']) }).catch(
      () => undefined,
    );
    expect(seen[0]?.headers.get('content-type')).toBe('application/octet-stream');
    const file = await apiFile('receipts.download', { params: { id: 't1', receiptId: 'r1' } });
    expect(await file.text()).toBe('pdf');
  });

  it('gives a navigation’s address with its query', () => {
    expect(apiHref('sso.start', { returnTo: '/cards?q=a b' })).toBe(
      '/api/sso/start?returnTo=%2Fcards%3Fq%3Da+b',
    );
  });

  it('turns the error body into a typed ApiError', async () => {
    server.use(
      serve('meta.get', () => apiError(429, 'rate_limited', 'Slow down', { retryAfterSeconds: 9 })),
    );
    const error = await api('meta.get').catch((e: unknown) => e);
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
      serve('cards.update', () =>
        apiError(409, 'card_changed', 'Someone else saved.', { current }),
      ),
    );
    const error = await api('cards.update', { params: { id: 'c1' }, body: {} }).catch(
      (e: unknown) => e,
    );
    expect(apiProblem(error, 'card_changed')?.current).toEqual(current);
    expect(apiProblem(error, 'step_up_required')).toBeUndefined();
    expect(apiProblem(new Error('x'), 'card_changed')).toBeUndefined();
  });

  it('gives the offered second factors of step_up_required and second_factor_required', async () => {
    const secondFactor = { methods: ['passkey' as const], passkeyOptions: { challenge: 'c' } };
    server.use(
      serve('session.signIn', () =>
        apiError(401, 'second_factor_required', 'Add a second factor.', { secondFactor }),
      ),
    );
    const error = await api('session.signIn', {
      body: { email: 'ada@example.test', password: 'pw' },
    }).catch((e: unknown) => e);
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
    for (const body of bodies) {
      server.use(
        serve('meta.get', () =>
          HttpResponse.json(body, {
            status: body.status,
            headers: { 'Content-Type': 'application/problem+json', 'X-Request-Id': 'r-h' },
          }),
        ),
      );
      const error = await api('meta.get').catch((e: unknown) => e);
      expect(error).toMatchObject({ status: body.status, code: 'http_error', requestId: 'r-h' });
      expect((error as ApiError).problem).toBeUndefined();
      expect(apiProblem(error, 'card_changed', 'not_found', 'invalid_body')).toBeUndefined();
    }
  });

  it('copes with an error that is not the documented shape (an HTML page, Retry-After header)', async () => {
    server.use(
      serve(
        'meta.get',
        () =>
          new HttpResponse('<html>Bad gateway</html>', {
            status: 503,
            statusText: 'Service Unavailable',
            headers: { 'Retry-After': '4', 'X-Request-Id': 'r-1' },
          }),
      ),
    );
    const error = await api('meta.get').catch((e: unknown) => e);
    expect(error).toMatchObject({
      status: 503,
      code: 'http_error',
      requestId: 'r-1',
      retryAfterSeconds: 4,
    });
  });

  it('takes the wait from Retry-After when the error body does not give one, the body’s when it does', async () => {
    server.use(
      serve('meta.get', () => {
        const res = apiError(429, 'rate_limited', 'Slow down');
        res.headers.set('Retry-After', '5');
        return res;
      }),
      serve('session.get', () => {
        const res = apiError(429, 'rate_limited', 'x', { retryAfterSeconds: 2 });
        res.headers.set('Retry-After', '9');
        return res;
      }),
    );
    const before = Date.now();
    const headerOnly = await api('meta.get').catch((e: unknown) => e);
    expect(headerOnly).toMatchObject({ code: 'rate_limited', retryAfterSeconds: 5 });
    expect((headerOnly as ApiError).receivedAt).toBeGreaterThanOrEqual(before);
    await expect(api('session.get')).rejects.toMatchObject({ retryAfterSeconds: 2 });
  });

  it('reports a dropped connection as a network error', async () => {
    server.use(serve('meta.get', () => HttpResponse.error()));
    const error = await api('meta.get').catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 0, code: 'network_error' });
  });

  it('tells the listener about 401 unauthenticated only', async () => {
    const listener = vi.fn();
    setUnauthenticatedListener(listener);
    server.use(
      serve('session.get', () => apiError(401, 'unauthenticated', 'Sign in')),
      serve('meta.get', () =>
        apiError(401, 'step_up_required', 'Code please', { secondFactor: { methods: ['totp'] } }),
      ),
    );
    await api('meta.get').catch(() => undefined);
    expect(listener).not.toHaveBeenCalled();
    await api('session.get').catch(() => undefined);
    expect(listener).toHaveBeenCalledTimes(1);
    expect(listener).toHaveBeenCalledWith(expect.objectContaining({ code: 'unauthenticated' }), {
      change: false,
    });
  });

  it('tells the listener when the server ended the session after wrong codes (401 session_ended)', async () => {
    const listener = vi.fn();
    setUnauthenticatedListener(listener);
    server.use(
      serve('session.stepUp', () => apiError(401, 'invalid_totp', 'Wrong code')),
      serve('session.stepUpOptions', () => apiError(401, 'session_ended', 'Signed out')),
    );
    await api('session.stepUp', { body: { totp: '123456' } }).catch(() => undefined);
    expect(listener).not.toHaveBeenCalled();
    await api('session.stepUpOptions').catch(() => undefined);
    // A second factor's options are the session's own step, not a change the person made.
    expect(listener).toHaveBeenCalledWith(expect.objectContaining({ code: 'session_ended' }), {
      change: false,
    });
  });

  it('says so when a success answer is not JSON', async () => {
    server.use(serve('meta.get', () => new HttpResponse('not json', { status: 200 })));
    await expect(api('meta.get')).rejects.toMatchObject({ code: 'invalid_response' });
  });
});

const card = {
  id: 'c1',
  last4: '4242',
  name: 'Travel',
  status: 'active',
  transactionSizeLimit: {},
} as const;
