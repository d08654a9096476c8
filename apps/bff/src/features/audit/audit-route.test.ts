import { type AuditRecord, auditPageSchema } from '@card-console/shared/api/audit';
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
      attempted: 'card.reveal',
      outcome: 'denied',
      target: 'POST /api/cards/:id/reveal',
      cardId,
      requestId: res.body.requestId,
    });
    // The list names the card as the card directory knows it; the record itself does not.
    const admin = await t.signIn('admin');
    const page = auditPageSchema.parse(
      (await t.request.get('/api/audit?action=access.denied').set(admin.headers())).body,
    );
    const card = t.sim.data.cards()[0];
    expect(page.items.find((r) => r.requestId === res.body.requestId)?.card).toEqual({
      name: card?.name,
      last4: card?.last4,
    });
    expect(items[0]).not.toHaveProperty('card');
  });

  it('refuses a malformed cursor with a 400', async () => {
    const admin = await t.signIn('admin');
    const res = await t.request.get('/api/audit?cursor=abc').set(admin.headers());
    expect(res.status).toBe(400);
  });
});

describe('GET /api/audit with the screen’s filters', () => {
  it('answers only the records matching every filter given, newest first', async () => {
    const start = t.clock.now();
    const written: AuditRecord[] = [];
    for (let i = 0; i < 12; i++) {
      t.clock.advance(60_000);
      written.push(
        await t.audit.append({
          actor: i % 2 ? 'filter-ada@example.com' : 'filter-bo@example.com',
          action: i % 3 ? 'card.reveal' : 'card.update',
          outcome: i % 4 ? 'success' : 'denied',
          cardId: `card_f${i % 3}`,
          requestId: `f${i}`,
        }),
      );
    }
    const admin = await t.signIn('admin');
    const ids = async (query: string) => {
      const res = await t.request.get(`/api/audit?${query}`).set(admin.headers());
      expect(res.status, query).toBe(200);
      return auditPageSchema.parse(res.body).items.map((r) => r.requestId);
    };
    const at = (i: number) => Date.parse(written[i]?.at ?? '');
    expect(await ids('actor=filter-ada@example.com&action=card.reveal')).toEqual([
      'f11',
      'f7',
      'f5',
      'f1',
    ]);
    // The address is matched whatever its case, as people type it.
    expect(await ids('actor=FILTER-ADA@Example.com&action=card.update')).toEqual(['f9', 'f3']);
    expect(await ids('actor=Filter-Bo@example.com&outcome=denied')).toEqual(['f8', 'f4', 'f0']);
    expect(await ids('cardId=card_f2&action=card.reveal')).toEqual(['f11', 'f8', 'f5', 'f2']);
    expect(await ids(`from=${at(3)}&to=${at(5)}&actor=filter-ada@example.com`)).toEqual([
      'f5',
      'f3',
    ]);
    expect(await ids(`to=${start}&action=card.update&cardId=card_f0`)).toEqual([]);
  });

  it.each([
    ['an unknown action', 'action=card.delete', /action/],
    ['an unknown outcome', 'outcome=maybe', /outcome/],
    ['a time that is not Unix milliseconds', 'from=yesterday', /from/],
    ['a negative time', 'to=-5', /to/],
    ['"from" after "to"', 'from=2000&to=1000', /"from" must not be after "to"/],
    ['a card id with a control character', 'cardId=card%001', /cardId/],
    ['an empty actor', 'actor=', /actor/],
    ['an actor longer than an address can be', `actor=${'a'.repeat(255)}`, /actor/],
    ['a repeated filter', 'actor=a@example.com&actor=b@example.com', /"actor" must appear once/],
    ['an array filter', 'action[]=card.reveal', /"action" must appear once/],
    ['an unknown filter', 'person=a@example.com', /person/],
  ])('refuses %s with 400 invalid_query and the error body', async (_what, query, message) => {
    const admin = await t.signIn('admin');
    const res = await t.request.get(`/api/audit?${query}`).set(admin.headers());
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      type: '/problems/invalid_query',
      title: 'Invalid query',
      status: 400,
      code: 'invalid_query',
      detail: expect.stringMatching(message),
      requestId: expect.any(String),
    });
  });

  it('keeps a finance person out of the trail, filters or not', async () => {
    const finance = await t.signIn('finance');
    const res = await t.request.get('/api/audit?action=card.reveal').set(finance.headers());
    expect(res.status).toBe(403);
  });
});
