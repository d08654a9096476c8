import { auditPageSchema } from '@card-console/shared/api/audit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/harness';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ sim: { transactions: 50 } });
});
afterAll(() => t.close());

describe('GET /api/audit', () => {
  it('shows admins the trail newest first, in pages of 50 with a cursor', async () => {
    for (let i = 0; i < 60; i++) {
      await t.audit.append({
        actor: 'x@example.com',
        action: 'card.update',
        outcome: 'success',
        requestId: `r${i}`,
      });
    }
    const admin = await t.signIn('admin');
    const first = auditPageSchema.parse(
      (await t.request.get('/api/audit').set(admin.headers())).body,
    );
    expect(first.items).toHaveLength(50);
    expect(first.items[0]?.action).toBe('session.signIn');
    expect(first.nextCursor).toMatch(/^\d+$/);
    const res = await t.request.get(`/api/audit?cursor=${first.nextCursor}`).set(admin.headers());
    const second = auditPageSchema.parse(res.body);
    expect(second.items.length).toBe(11);
    expect(second.nextCursor).toBeUndefined();
    expect(second.items.at(-1)?.requestId).toBe('r0');
  });

  it('records a finance person’s denied attempt, with what they tried', async () => {
    const finance = await t.signIn('finance');
    const cardId = t.sim.data.cards()[0]?.id ?? '';
    const res = await t.request
      .post(`/api/cards/${cardId}/reveal`)
      .set(finance.headers())
      .send({ reason: 'curious' });
    expect(res.status).toBe(403);
    const { items } = await t.audit.list({ limit: 5 });
    expect(items[0]).toMatchObject({
      actor: 'finance@demo.test',
      role: 'finance',
      action: 'access.denied',
      outcome: 'denied',
      target: 'POST /api/cards/:id/reveal',
      cardId,
      requestId: res.body.requestId,
    });
  });

  it('refuses a malformed cursor with a 400', async () => {
    const admin = await t.signIn('admin');
    const res = await t.request.get('/api/audit?cursor=abc').set(admin.headers());
    expect(res.status).toBe(400);
  });
});
