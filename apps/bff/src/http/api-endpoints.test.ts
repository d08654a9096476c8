// Every endpoint is one declaration (`core/endpoint.ts`): an endpoint of the contract
// (`packages/shared/src/contract`) implemented by the feature that owns it and listed once in
// `apiFeatures`; the router, the authorization checks, the audit of refusals and
// the generated tests (authorization-matrix.test.ts, random-requests.property.test.ts) all read
// the same objects. These tests hold what a declaration must say.
import { auditAttempts } from '@card-console/shared/api/audit';
import { roleSchema } from '@card-console/shared/api/meta';
import { routes } from '@card-console/shared/contract/routes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { routeOf } from '../core/endpoint';
import { startTestApp, type TestApp } from '../test/harness';
import { apiEndpoints, apiFeatures } from './api-endpoints';

const paramNames = (path: string) =>
  path
    .split('/')
    .filter((s) => s.startsWith(':'))
    .map((s) => s.slice(1));

describe('the endpoint declarations', () => {
  it('implement every endpoint of the contract once, and nothing else', () => {
    expect(apiEndpoints.map((endpoint) => endpoint.name).sort()).toEqual(
      Object.keys(routes).sort(),
    );
  });

  it('list every endpoint once, under a feature, with a unique method and path', () => {
    const routes = apiEndpoints.map(routeOf);
    expect(new Set(routes).size).toBe(routes.length);
    expect(apiEndpoints.length).toBe(
      apiFeatures.reduce((sum, feature) => sum + feature.endpoints.length, 0),
    );
    expect(routes).toContain('PATCH /api/cards/:id');
    expect(routes).toContain('GET /api/sso/callback');
  });

  describe.each(apiEndpoints.map((e) => [routeOf(e), e] as const))('%s', (_route, endpoint) => {
    it('has an access rule, a summary and a handler', () => {
      const access = endpoint.access;
      if (typeof access === 'string') expect(['public', 'signedIn']).toContain(access);
      else {
        expect(access.length).toBeGreaterThan(0);
        for (const role of access) expect(roleSchema.options).toContain(role);
      }
      expect(endpoint.summary.length).toBeGreaterThan(5);
      expect(typeof endpoint.handler).toBe('function');
    });

    it('has a schema for each path parameter, and none for parameters it lacks', () => {
      expect(Object.keys(endpoint.params ?? {}).sort()).toEqual(paramNames(endpoint.path).sort());
      for (const schema of Object.values(endpoint.params ?? {})) {
        expect(schema).toBeInstanceOf(z.ZodType);
      }
    });

    it('says what it answers: a response schema, a streamed file or a redirect', () => {
      const reply = endpoint.response;
      if (typeof reply === 'string') {
        expect(reply).toBe(endpoint.navigation ? 'redirect' : 'stream');
      } else {
        expect(reply).toBeInstanceOf(z.ZodType);
      }
      if (endpoint.navigation) expect(endpoint.response).toBe('redirect');
    });

    it('reads a body only on a mutation, and a navigation is a GET that changes nothing', () => {
      expect(endpoint.mutation).toBe(endpoint.method !== 'GET');
      if (endpoint.body) expect(endpoint.mutation).toBe(true);
      if (endpoint.handlerChecksBody) expect(endpoint.body).toBeInstanceOf(z.ZodType);
      if (endpoint.navigation) expect(endpoint.method).toBe('GET');
      if (endpoint.query) expect(endpoint.query).toBeInstanceOf(z.ZodType);
    });

    it('names what a refused call was attempting where a refusal is recorded', () => {
      // Recorded: a role may be refused it, or it is a mutation (a foreign Origin).
      const refusable =
        endpoint.mutation ||
        (Array.isArray(endpoint.access) &&
          !roleSchema.options.every((role) => endpoint.access.includes(role)));
      if (refusable) expect(auditAttempts).toContain(endpoint.attempted);
      else expect(endpoint.attempted).toBeUndefined();
    });

    it('is named for a card only where its :id is a card’s', () => {
      const refusals = endpoint.refusals;
      if (refusals?.cardId) expect(endpoint.path).toMatch(/^\/cards\/:id(?:\/|$)/);
      if (refusals?.action) expect(refusals.cardId ?? refusals.target).toBeDefined();
      // A refusal by the endpoint's own limit is recorded as its feature's action.
      if (refusals?.limit) expect(refusals.action).toBeDefined();
    });

    it('has an example path that the path pattern matches', () => {
      const pattern = new RegExp(
        `^/api${endpoint.path.replace(/\./g, '\\.').replace(/:\w+/g, '[^/?]+')}(\\?.*)?$`,
      );
      expect(endpoint.example).toMatch(pattern);
    });
  });
});

describe('access.denied records', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ sim: { transactions: 10 } });
  });
  afterAll(() => t.close());

  const recordOf = async (requestId: string | undefined) =>
    (await t.audit.list({ limit: 100 })).items.find((r) => r.requestId === requestId);

  it('say a role’s refused reveal, edit, sub account and audit view apart', async () => {
    const finance = await t.signIn('finance');
    const cardId = t.sim.data.cards()[0]?.id ?? '';
    const tries = [
      [t.request.post(`/api/cards/${cardId}/reveal`).send({ reason: 'x' }), 'card.reveal', cardId],
      [t.request.patch(`/api/cards/${cardId}`).send({ name: 'x' }), 'card.update', cardId],
      [t.request.post('/api/sub-accounts').send({ name: 'x' }), 'subAccount.create', undefined],
      [t.request.get('/api/audit'), 'audit.view', undefined],
    ] as const;
    for (const [request, attempted, card] of tries) {
      const res = await request.set(finance.headers());
      expect(res.status, attempted).toBe(403);
      expect(await recordOf(res.body.requestId), attempted).toMatchObject({
        action: 'access.denied',
        attempted,
        outcome: 'denied',
        ...(card ? { cardId: card } : {}),
      });
    }
  });

  it('name what a mutation from another site was attempting', async () => {
    const admin = await t.signIn('admin');
    const cardId = t.sim.data.cards()[0]?.id ?? '';
    const res = await t.request
      .patch(`/api/cards/${cardId}`)
      .set({ ...admin.headers(), Origin: 'https://evil.example' })
      .send({ name: 'x' });
    expect(res.status).toBe(403);
    expect(await recordOf(res.body.requestId)).toMatchObject({
      action: 'access.denied',
      attempted: 'card.update',
      detail: 'bad_origin',
      cardId,
    });
  });
});
