import { auditAttempts } from '@card-console/shared/api/audit';
import { roleSchema } from '@card-console/shared/api/meta';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../test/harness';
import { routeKey } from './api-router';
import { routeAttempts } from './route-attempts';
import { routeTable } from './route-table';

/** Rows whose refusal is recorded: one a role may be refused, or a mutation (foreign Origin). */
const refusable = routeTable.filter(
  (rule) =>
    rule.mutation ||
    (Array.isArray(rule.access) && !roleSchema.options.every((role) => rule.access.includes(role))),
);

describe('what a refused request was attempting', () => {
  it('is named for every route whose refusal is recorded, and only for routes that exist', () => {
    expect(refusable.filter((rule) => !routeAttempts[routeKey(rule)]).map(routeKey)).toEqual([]);
    const rows = new Set(routeTable.map(routeKey));
    expect(Object.keys(routeAttempts).filter((key) => !rows.has(key as never))).toEqual([]);
    for (const attempt of Object.values(routeAttempts)) expect(auditAttempts).toContain(attempt);
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
