// The CSRF rules through the real app: `X-CSRF: 1` on every /api call, and on every mutation
// (POST, PUT, PATCH, DELETE) an Origin equal to the public origin; reads need no Origin.
import { apiErrorBodySchema } from '@card-console/shared/api/error';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../test/harness';
import type { TestSession } from '../test/test-session';

let t: TestApp;
let admin: TestSession;
beforeAll(async () => {
  t = await startTestApp({ sim: { transactions: 50 } });
  admin = await t.signIn('admin');
});
afterAll(() => t.close());

const card = () => t.sim.data.cards()[0]?.id ?? '';

type Mutation = 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * A real call of each mutation method, with the headers given (no Origin unless given). The
 * body is malformed JSON: read only after the CSRF, session and access checks, so a 400
 * `invalid_json` shows a call got past all of them, whatever the route's body rules are.
 */
function send(method: Mutation, headers: Record<string, string>) {
  const json = { ...headers, 'Content-Type': 'application/json' };
  switch (method) {
    case 'POST':
      return t.request.post('/api/sub-accounts').set(json).send('{"name": ');
    case 'PUT':
      return t.request.put(`/api/cards/${card()}`).set(json).send('{"name": ');
    case 'PATCH':
      return t.request.patch(`/api/cards/${card()}`).set(json).send('{"name": ');
    case 'DELETE':
      return t.request.delete('/api/session').set(headers);
  }
}

const mutations: Mutation[] = ['POST', 'PUT', 'PATCH', 'DELETE'];
const badOrigins: [string, string | undefined][] = [
  ['no Origin', undefined],
  ['a foreign Origin', 'https://evil.example'],
  ['the public origin on another port', 'http://localhost:3001'],
];

describe('Origin on mutations', () => {
  describe.each(mutations)('%s', (method) => {
    it.each(badOrigins)('%s → 403 bad_origin, nothing done', async (_name, origin) => {
      const before = t.sim.stats.total();
      const headers: Record<string, string> = { 'X-CSRF': '1', Cookie: admin.cookie };
      if (origin) headers.Origin = origin;

      const res = await send(method, headers);

      expect(res.status).toBe(403);
      const body = apiErrorBodySchema.parse(res.body);
      expect(body.code).toBe('bad_origin');
      expect(body.detail).toMatch(/did not come from Card Console/);
      expect(t.sim.stats.total()).toBe(before);
      // A refused sign-out leaves the session working.
      expect((await t.request.get('/api/session').set(admin.headers())).status).toBe(200);
    });

    it('the public Origin → passes the check', async () => {
      // Its own session: a sign-out that passes ends it.
      const session = method === 'DELETE' ? await t.signIn('admin') : admin;
      const res = await send(method, session.headers());
      // PUT has no route: its 404 comes after the Origin check let it through.
      const expected = {
        POST: [400, 'invalid_json'],
        PUT: [404, 'not_found'],
        PATCH: [400, 'invalid_json'],
        DELETE: [204, undefined],
      }[method];
      expect([res.status, res.body?.code]).toEqual(expected);
    });
  });
});

describe('why a mutation was refused, in the log', () => {
  const refusals = (requestId: string) =>
    t.logs
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.requestId === requestId && /^mutation refused: /.test(`${line.msg}`));

  it('a foreign Origin → a warning naming the origin received and the origins allowed', async () => {
    const res = await send('PATCH', {
      'X-CSRF': '1',
      Cookie: admin.cookie,
      Origin: 'https://cards.example.net',
    });
    expect(res.status).toBe(403);
    const [line, ...more] = refusals(res.headers['x-request-id'] ?? '');
    expect(more).toEqual([]);
    expect(line).toMatchObject({
      level: 40,
      method: 'PATCH',
      origin: 'https://cards.example.net',
      allowedOrigins: t.config.allowedOrigins,
    });
    expect(line?.msg).toMatch(/PUBLIC_ORIGIN/);
    expect(JSON.stringify(line)).not.toContain(admin.cookie);
  });

  it('no Origin at all → a warning that says the header is missing', async () => {
    const res = await send('POST', { 'X-CSRF': '1', Cookie: admin.cookie });
    expect(res.status).toBe(403);
    const [line] = refusals(res.headers['x-request-id'] ?? '');
    expect(line).toMatchObject({
      level: 40,
      origin: null,
      allowedOrigins: t.config.allowedOrigins,
    });
    expect(line?.msg).toMatch(/no Origin header/);
  });

  it('the public Origin → no such warning', async () => {
    const res = await send('POST', admin.headers());
    expect(res.status).toBe(400);
    expect(refusals(res.headers['x-request-id'] ?? '')).toEqual([]);
  });
});

describe('reads', () => {
  it.each(['GET', 'HEAD'] as const)(
    '%s needs no Origin, and a foreign one is ignored',
    async (m) => {
      const call = () => (m === 'GET' ? t.request.get('/api/cards') : t.request.head('/api/cards'));
      const headers = { 'X-CSRF': '1', Cookie: admin.cookie };
      expect((await call().set(headers)).status).toBe(200);
      expect((await call().set({ ...headers, Origin: 'https://evil.example' })).status).toBe(200);
    },
  );
});

describe('X-CSRF on every call', () => {
  it.each([
    ['missing', undefined],
    ['not 1', 'true'],
  ])('%s → 401 csrf_required, even with the public Origin', async (_name, value) => {
    for (const method of ['GET', 'POST'] as const) {
      const headers: Record<string, string> = {
        Origin: t.config.publicOrigin,
        Cookie: admin.cookie,
      };
      if (value) headers['X-CSRF'] = value;
      const res =
        method === 'GET'
          ? await t.request.get('/api/cards').set(headers)
          : await t.request.post('/api/sub-accounts').set(headers).send({ name: 'CSRF test' });
      expect(res.status).toBe(401);
      const body = apiErrorBodySchema.parse(res.body);
      expect(body.code).toBe('csrf_required');
      expect(body.detail).toMatch(/X-CSRF: 1/);
    }
  });
});
