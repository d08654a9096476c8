import type { Role } from '@card-console/shared/api/meta';
import type { RouteRule } from '../http/route-table';
import type { TestApp } from './harness';

/** How to call a route so that an allowed caller gets a 2xx. */
export interface RouteRequest {
  path: string;
  body?: Record<string, unknown>;
}

type Spec = (t: TestApp, role: Role) => RouteRequest | Promise<RouteRequest>;

/** Ids the simulator really has, so example paths resolve to real resources. */
export function exampleIds(t: TestApp) {
  const subAccount = t.sim.data.subAccounts()[0];
  const card = t.sim.data.cards()[0];
  const transaction = subAccount ? t.sim.data.transactions(subAccount.id)[0] : undefined;
  if (!subAccount || !card || !transaction)
    throw new Error('the simulator has no data to test with');
  return {
    subAccountId: subAccount.id,
    cardId: card.id,
    transactionId: transaction.id,
    // Well formed; an export with this id exists only where a recipe ran one.
    exportRequestId: 'req-example-0001',
  };
}

export function resolveExample(t: TestApp, rule: RouteRule): string {
  const ids = exampleIds(t);
  return rule.example.replace(/\{(\w+)\}/g, (_, name: keyof typeof ids) =>
    encodeURIComponent(ids[name]),
  );
}

/**
 * One entry per row of the route table, keyed `METHOD path`. The coverage test fails when a
 * row has no entry here, so a new route cannot skip the generated tests.
 */
export const routeRequests: Record<string, Spec> = {
  'GET /api/meta': () => ({ path: '/api/meta' }),
  'POST /api/session': (t, role) => ({
    path: '/api/session',
    body: {
      email: t.credentials[role].email,
      password: t.credentials[role].password,
      ...(role === 'admin' ? { totp: t.adminTotp() } : {}),
    },
  }),
  'GET /api/session': () => ({ path: '/api/session' }),
  'DELETE /api/session': () => ({ path: '/api/session' }),
  'GET /api/sub-accounts': () => ({ path: '/api/sub-accounts' }),
  'POST /api/sub-accounts': () => ({ path: '/api/sub-accounts', body: { name: 'Matrix team' } }),
  'GET /api/cards': () => ({ path: '/api/cards' }),
  'GET /api/cards/:id': (t) => ({ path: `/api/cards/${exampleIds(t).cardId}` }),
  'PATCH /api/cards/:id': (t) => {
    const { cardId } = exampleIds(t);
    return {
      path: `/api/cards/${cardId}`,
      body: { name: 'Matrix card', expected: { name: t.sim.data.card(cardId)?.name } },
    };
  },
  'POST /api/cards/:id/reveal': (t) => ({
    path: `/api/cards/${exampleIds(t).cardId}/reveal`,
    body: { reason: 'authorization matrix test' },
  }),
  'GET /api/transactions/export.csv': (t) => ({
    path: `/api/transactions/export.csv?subAccountId=${exampleIds(t).subAccountId}`,
  }),
  // The person's own finished export (run through a session of their own): its receipt.
  'GET /api/transactions/export-receipts/:requestId': async (t, role) => {
    const session = await t.signIn(role);
    const done = await t.request
      .get(`/api/transactions/export.csv?subAccountId=${exampleIds(t).subAccountId}`)
      .set(session.headers());
    if (done.status !== 200) throw new Error(`the recipe's export failed: ${done.status}`);
    return { path: `/api/transactions/export-receipts/${done.headers['x-request-id']}` };
  },
  'GET /api/transactions': (t) => ({
    path: `/api/transactions?subAccountId=${exampleIds(t).subAccountId}`,
  }),
  'GET /api/transactions/:id': (t) => ({
    path: `/api/transactions/${exampleIds(t).transactionId}`,
  }),
  'GET /api/audit': () => ({ path: '/api/audit' }),
};

export const ruleKey = (rule: RouteRule) => `${rule.method} ${rule.path}`;

/** Sends `method path` with headers and an optional JSON body through the harness. */
export function send(
  t: TestApp,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
) {
  const m = method.toLowerCase() as 'get' | 'post' | 'patch' | 'delete';
  const req = t.request[m](path).set(headers);
  return body === undefined ? req : req.send(body as object);
}
