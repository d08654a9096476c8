import { HttpResponse, http } from 'msw';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { apiError, requestsTo, sentRequests, server } from '../test/server';

/** A fresh copy of the module pair per test: early responses are module state, used once. */
async function load() {
  vi.resetModules();
  const early = await import('./early-requests');
  const client = await import('./api-client');
  return { ...early, ...client };
}

const paths = () => sentRequests.map((r) => `${new URL(r.url).pathname}${new URL(r.url).search}`);

describe('early requests', () => {
  beforeEach(() => {
    server.use(
      http.get('/api/session', () => HttpResponse.json({ user: { email: 'f@example.test' } })),
      http.get('/api/sub-accounts', () =>
        HttpResponse.json({ items: [{ id: 'sa_first' }, { id: 'sa_second' }] }),
      ),
      http.get('/api/transactions', ({ request }) =>
        HttpResponse.json({
          items: [],
          sub: new URL(request.url).searchParams.get('subAccountId'),
        }),
      ),
    );
  });

  it('on the Transactions landing, sends the session, the sub accounts, then the first one’s list', async () => {
    const { sendEarlyRequests } = await load();
    sendEarlyRequests({ pathname: '/transactions', search: '' });
    await vi.waitFor(() => expect(requestsTo('/api/transactions')).toHaveLength(1));
    expect(paths()).toEqual([
      '/api/session',
      '/api/sub-accounts',
      '/api/transactions?subAccountId=sa_first',
    ]);
    const headers = sentRequests[0]?.headers;
    expect(headers?.get('x-csrf')).toBe('1');
    expect(headers?.get('accept')).toBe('application/json');
  });

  it('answers the app’s own GETs from those, once each, without asking again', async () => {
    const { sendEarlyRequests, apiJson } = await load();
    sendEarlyRequests({ pathname: '/transactions', search: '' });
    await vi.waitFor(() => expect(requestsTo('/api/transactions')).toHaveLength(1));

    expect(await apiJson('/api/session')).toEqual({ user: { email: 'f@example.test' } });
    expect(await apiJson('/api/sub-accounts', { query: { cursor: undefined } })).toEqual({
      items: [{ id: 'sa_first' }, { id: 'sa_second' }],
    });
    expect(
      await apiJson('/api/transactions', {
        query: { subAccountId: 'sa_first', status: undefined },
      }),
    ).toEqual({ items: [], sub: 'sa_first' });
    expect(sentRequests).toHaveLength(3);

    // Used once: asking again goes to the server.
    await apiJson('/api/session');
    expect(requestsTo('/api/session')).toHaveLength(2);
  });

  it('leaves other requests to the network: another URL, a background poll, a POST', async () => {
    const { sendEarlyRequests, apiJson, apiRequest } = await load();
    server.use(http.post('/api/session', () => HttpResponse.json({ posted: true })));
    sendEarlyRequests({ pathname: '/sub-accounts', search: '' });
    await vi.waitFor(() => expect(sentRequests).toHaveLength(2));
    await apiJson('/api/transactions', { query: { subAccountId: 'sa_second' } });
    await apiRequest('/api/session', { background: true });
    await apiRequest('/api/session', { method: 'POST', body: {} });
    expect(requestsTo('/api/transactions')).toHaveLength(1);
    expect(requestsTo('/api/session')).toHaveLength(2);
    expect(requestsTo('/api/session', 'POST')).toHaveLength(1);
  });

  it('forgets every early answer once anything changes (a sign-in, an edit)', async () => {
    const { sendEarlyRequests, apiJson, apiRequest } = await load();
    server.use(
      http.get('/api/session', () => apiError(401, 'unauthenticated')),
      http.post('/api/session', () => HttpResponse.json({ signedIn: true })),
    );
    sendEarlyRequests({ pathname: '/sub-accounts', search: '' });
    await vi.waitFor(() => expect(sentRequests).toHaveLength(2));
    await expect(apiJson('/api/session')).rejects.toMatchObject({ status: 401 });
    await apiRequest('/api/session', { method: 'POST', body: {} });
    // Signed in now: the sub accounts are asked for again, not taken from before.
    await apiJson('/api/sub-accounts');
    expect(requestsTo('/api/sub-accounts')).toHaveLength(2);
  });

  it('after a 401, asks again for what was read early (a sign-in elsewhere may follow)', async () => {
    const { sendEarlyRequests, apiJson } = await load();
    server.use(
      http.get('/api/session', () => apiError(401, 'unauthenticated')),
      http.get('/api/sub-accounts', () => apiError(401, 'unauthenticated')),
    );
    sendEarlyRequests({ pathname: '/sub-accounts', search: '' });
    await vi.waitFor(() => expect(sentRequests).toHaveLength(2));
    await expect(apiJson('/api/session')).rejects.toMatchObject({ status: 401 });
    server.use(http.get('/api/sub-accounts', () => HttpResponse.json({ items: [] })));
    expect(await apiJson('/api/sub-accounts')).toEqual({ items: [] });
    expect(requestsTo('/api/sub-accounts')).toHaveLength(2);
  });

  it('does not send the list for sub accounts that answer after a change', async () => {
    const { sendEarlyRequests, apiRequest } = await load();
    let answer: (() => void) | undefined;
    server.use(
      http.get('/api/sub-accounts', async () => {
        await new Promise<void>((resolve) => {
          answer = resolve;
        });
        return HttpResponse.json({ items: [{ id: 'sa_first' }] });
      }),
      http.delete('/api/session', () => new HttpResponse(null, { status: 204 })),
    );
    sendEarlyRequests({ pathname: '/transactions', search: '' });
    await vi.waitFor(() => expect(answer).toBeDefined());
    await apiRequest('/api/session', { method: 'DELETE' });
    answer?.();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(requestsTo('/api/transactions')).toHaveLength(0);
  });

  it('an aborted read throws, and leaves the early answer for the next one', async () => {
    const { sendEarlyRequests, apiJson } = await load();
    sendEarlyRequests({ pathname: '/', search: '' });
    await vi.waitFor(() => expect(sentRequests).toHaveLength(1));
    await expect(apiJson('/api/session', { signal: AbortSignal.abort() })).rejects.toMatchObject({
      name: 'AbortError',
    });
    expect(await apiJson('/api/session')).toEqual({ user: { email: 'f@example.test' } });
    expect(requestsTo('/api/session')).toHaveLength(1);
  });

  it('asks for the list at once when the address names the sub account', async () => {
    const { sendEarlyRequests } = await load();
    sendEarlyRequests({ pathname: '/transactions', search: '?subAccountId=sa_second' });
    await vi.waitFor(() => expect(sentRequests).toHaveLength(3));
    expect(paths()).toContain('/api/transactions?subAccountId=sa_second');
  });

  it('does not guess a list it cannot know exactly from the address', async () => {
    const { sendEarlyRequests } = await load();
    sendEarlyRequests({ pathname: '/transactions', search: '?subAccountId=sa_1&status=settled' });
    sendEarlyRequests({ pathname: '/transactions', search: '?subAccountId=12' });
    sendEarlyRequests({ pathname: '/transactions', search: '?subAccountId=a&subAccountId=b' });
    await vi.waitFor(() => expect(sentRequests).toHaveLength(6));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(requestsTo('/api/transactions')).toHaveLength(0);
  });

  it('sends only the session on sign-in (which goes on to the app when there is one)', async () => {
    const { sendEarlyRequests } = await load();
    sendEarlyRequests({ pathname: '/sign-in', search: '?redirect=%2Fcards' });
    await vi.waitFor(() => expect(sentRequests).toHaveLength(1));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(paths()).toEqual(['/api/session']);
  });

  it('sends no list when the sub accounts answer 401', async () => {
    const { sendEarlyRequests } = await load();
    server.use(http.get('/api/sub-accounts', () => apiError(401, 'unauthenticated')));
    sendEarlyRequests({ pathname: '/transactions', search: '' });
    await vi.waitFor(() => expect(sentRequests).toHaveLength(2));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(paths()).toEqual(['/api/session', '/api/sub-accounts']);
  });

  it('drops an early answer the app has not taken within ten seconds', async () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    const { sendEarlyRequests, apiJson } = await load();
    sendEarlyRequests({ pathname: '/', search: '' });
    await vi.waitFor(() => expect(sentRequests).toHaveLength(1));
    vi.advanceTimersByTime(10_001);
    await apiJson('/api/session');
    expect(requestsTo('/api/session')).toHaveLength(2);
  });
});
