import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp } from '../test/harness';
import { testPan } from '../test/test-pan';
import type { TestSession } from '../test/test-session';
import { pathForLog } from './http-logger';

let t: TestApp;
let finance: TestSession;
beforeAll(async () => {
  t = await startTestApp({ sim: { transactions: 100 } });
  finance = await t.signIn('finance');
});
afterAll(() => t.close());

interface RequestLine {
  msg: string;
  req: { id?: string; method?: string; route?: string; path?: string; actor?: string };
  res: { statusCode?: number };
  responseTime?: unknown;
}

/** The request line written for a response (written as the response finishes). */
async function lineFor(res: { headers: Record<string, string> }): Promise<RequestLine> {
  const id = res.headers['x-request-id'];
  return vi.waitFor(() => {
    const found = t.logs
      .map((text) => JSON.parse(text) as RequestLine)
      .find((line) => line.msg === 'request completed' && line.req?.id === id);
    if (!found) throw new Error(`no request line for ${id}`);
    return found;
  });
}

describe('the request log line', () => {
  it('for a matched API call: route template, path with the id, status, time, request id, actor', async () => {
    const cardId = t.sim.data.cards()[0]?.id ?? '';
    const res = await t.request.get(`/api/cards/${cardId}`).set(finance.headers());
    expect(res.status).toBe(200);
    const line = await lineFor(res);
    expect(line.req).toMatchObject({
      id: res.headers['x-request-id'],
      method: 'GET',
      route: 'GET /api/cards/:id',
      path: `/api/cards/${cardId}`,
      actor: t.credentials.finance.email,
    });
    expect(line.res.statusCode).toBe(200);
    expect(typeof line.responseTime).toBe('number');
  });

  it('for an API path with no route: the path, no route', async () => {
    const res = await t.request.get('/api/cards/c1/nothing-here').set(finance.headers());
    expect(res.status).toBe(404);
    const line = await lineFor(res);
    expect(line.req.route).toBeUndefined();
    expect(line.req).toMatchObject({ method: 'GET', path: '/api/cards/c1/nothing-here' });
    expect(line.res.statusCode).toBe(404);
  });

  it('never carries query values, which may hold anything a person typed', async () => {
    const secret = `s3cret-${Date.now().toString(36)}`;
    const subAccountId = t.sim.data.subAccounts()[0]?.id ?? '';
    const res = await t.request
      .get(`/api/transactions?subAccountId=${subAccountId}&token=${secret}`)
      .set(finance.headers());
    expect(res.status).toBe(400);
    const line = await lineFor(res);
    expect(line.req).toMatchObject({ route: 'GET /api/transactions', path: '/api/transactions' });
    expect(JSON.stringify(line)).not.toContain(secret);
  });

  it('for a page outside the API: the path, no route', async () => {
    const res = await t.request.get('/healthz?probe=1');
    expect(res.status).toBe(200);
    const line = await lineFor(res);
    expect(line.req.route).toBeUndefined();
    expect(line.req.path).toBe('/healthz');
  });

  it('masks a card number pasted into a page path to its last four digits', async () => {
    const pan = testPan(987654321);
    const res = await t.request.get(`/cards/${pan}`);
    const line = await lineFor(res);
    expect(line.req.path).toBe(`/cards/•••• ${pan.slice(-4)}`);
    expect(t.logs.join('\n')).not.toContain(pan);
  });
});

describe('pathForLog', () => {
  const pan = testPan(555555555);
  const grouped = pan.replace(/(\d{4})(?=\d)/g, '$1 ');

  it('cuts the query and keeps ids that are not card numbers', () => {
    expect(pathForLog('/api/cards/card_1?cursor=abc')).toBe('/api/cards/card_1');
    // Twelve digits: too short to be a card number.
    expect(pathForLog('/api/transactions/123456789012')).toBe('/api/transactions/123456789012');
  });

  it.each([
    ['plain', pan],
    ['grouped with dashes', grouped.replaceAll(' ', '-')],
    ['grouped with escaped spaces', encodeURIComponent(grouped)],
    ['escaped digit by digit', [...pan].map((d) => `%3${d}`).join('')],
  ])('masks a card number written %s', (_how, written) => {
    const logged = pathForLog(`/api/cards/${written}/reveal?x=1`);
    expect(logged).toBe(`/api/cards/•••• ${pan.slice(-4)}/reveal`);
  });

  it('leaves a malformed escape as it is', () => {
    expect(pathForLog('/api/cards/%E0%A4%A')).toBe('/api/cards/%E0%A4%A');
  });
});
