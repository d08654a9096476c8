import { cardSchema } from '@card-console/shared/api/cards';
import { apiErrorBodySchema } from '@card-console/shared/api/error';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cardValuesSeen } from '../../test/card-values';
import { startTestApp, type TestApp, type TestSession } from '../../test/harness';

let t: TestApp;
let admin: TestSession;

beforeAll(async () => {
  t = await startTestApp();
  admin = await t.signIn('admin');
});
afterAll(async () => t.close());
afterEach(() => {
  t.sim.faults.clear();
  t.sim.stats.reset();
});

const limitsOf = (id: string) =>
  t.sim.data.card(id)?.spendingConstraint.spendingRule.transactionSizeLimit;

/** The card's editable values as the person would have seen them (`null`: no limit). */
const seen = (id: string) => cardValuesSeen(t.sim, id);

async function auditFor(requestId: string) {
  return (await t.audit.list({ limit: 1000 })).items.filter((r) => r.requestId === requestId);
}

describe('PATCH /api/cards/:id', () => {
  it('changes the limits, which read back, with a before/after audit and no PAN in it', async () => {
    const id = t.sim.data.cards()[3]?.id ?? '';
    const before = t.sim.data.card(id);
    if (!before) throw new Error('no card');
    const res = await t.request
      .patch(`/api/cards/${id}`)
      .set(admin.headers())
      .send({
        transactionSizeLimit: { minimumCents: 100, maximumCents: 250_000 },
        expected: seen(id),
      });
    expect(res.status).toBe(200);
    expect(cardSchema.parse(res.body).transactionSizeLimit).toEqual({
      minimumCents: 100,
      maximumCents: 250_000,
    });
    expect(limitsOf(id)).toEqual({
      minimum: { amountCents: 100 },
      maximum: { amountCents: 250_000 },
    });

    const readBack = await t.request.get(`/api/cards/${id}`).set(admin.headers());
    expect(readBack.body.transactionSizeLimit).toEqual({
      minimumCents: 100,
      maximumCents: 250_000,
    });

    const [record] = await auditFor(res.headers['x-request-id'] ?? '');
    const oldLimits = before.spendingConstraint.spendingRule.transactionSizeLimit;
    expect(record).toMatchObject({
      action: 'card.update',
      outcome: 'success',
      cardId: id,
      last4: before.last4,
      before: {
        name: before.name,
        minimumCents: oldLimits.minimum.amountCents,
        maximumCents: oldLimits.maximum.amountCents,
      },
      after: { name: before.name, minimumCents: 100, maximumCents: 250_000 },
    });
    expect(JSON.stringify(record)).not.toContain(before.pan);
    expect(t.sim.stats.count('PATCH /card/:id')).toBe(1);
  });

  it('the answer carries no PAN or CVV even when the upstream PATCH response has them', async () => {
    const id = t.sim.data.cards()[8]?.id ?? '';
    const secret = t.sim.data.card(id);
    if (!secret) throw new Error('no card');
    t.sim.faults.enqueue({ kind: 'body', method: 'PATCH', body: { ...secret, name: 'Renamed' } });
    const res = await t.request
      .patch(`/api/cards/${id}`)
      .set(admin.headers())
      .send({ name: 'Renamed', expected: seen(id) });
    expect(res.status).toBe(200);
    expect(res.text).not.toContain(secret.pan);
    expect(res.body).not.toHaveProperty('cvv');
    const [record] = await auditFor(res.headers['x-request-id'] ?? '');
    expect(JSON.stringify(record)).not.toContain(secret.pan);
  });

  it('changes only the maximum, keeping the minimum, and renames', async () => {
    const id = t.sim.data.cards()[4]?.id ?? '';
    const min = limitsOf(id)?.minimum.amountCents ?? 0;
    const res = await t.request
      .patch(`/api/cards/${id}`)
      .set(admin.headers())
      .send({
        name: 'Travel card',
        transactionSizeLimit: { maximumCents: min + 5_000 },
        expected: seen(id),
      });
    expect(res.status).toBe(200);
    expect(t.sim.data.card(id)?.name).toBe('Travel card');
    expect(limitsOf(id)).toEqual({
      minimum: { amountCents: min },
      maximum: { amountCents: min + 5_000 },
    });
  });

  it('a maximum below the current minimum is refused with nothing sent upstream, and audited', async () => {
    const id = t.sim.data.cards()[5]?.id ?? '';
    await t.request
      .patch(`/api/cards/${id}`)
      .set(admin.headers())
      .send({
        transactionSizeLimit: { minimumCents: 10_000, maximumCents: 20_000 },
        expected: seen(id),
      });
    t.sim.stats.reset();
    const res = await t.request
      .patch(`/api/cards/${id}`)
      .set(admin.headers())
      .send({ transactionSizeLimit: { maximumCents: 5_000 }, expected: seen(id) });
    expect(res.status).toBe(400);
    expect(apiErrorBodySchema.parse(res.body).code).toBe('invalid_body');
    expect(t.sim.stats.count('PATCH /card/:id')).toBe(0);
    expect(limitsOf(id)?.maximum.amountCents).toBe(20_000);
    expect(await auditFor(res.body.requestId)).toMatchObject([
      { action: 'card.update', outcome: 'failed', detail: 'invalid_body' },
    ]);
  });

  it('min > max in the body itself is refused before anything is read', async () => {
    const id = t.sim.data.cards()[5]?.id ?? '';
    const res = await t.request
      .patch(`/api/cards/${id}`)
      .set(admin.headers())
      .send({ transactionSizeLimit: { minimumCents: 9, maximumCents: 1 } });
    expect(res.status).toBe(400);
    expect(t.sim.stats.total()).toBe(0);
  });

  it('when the service refuses the change, the person sees its reason and the failure is audited', async () => {
    const id = t.sim.data.cards()[6]?.id ?? '';
    t.sim.faults.enqueue({
      kind: 'status',
      status: 400,
      method: 'PATCH',
      body: { status: 400, code: 'limit_refused', message: 'maximum is above the program limit' },
    });
    const res = await t.request
      .patch(`/api/cards/${id}`)
      .set(admin.headers())
      .send({ transactionSizeLimit: { maximumCents: 9_000_000 }, expected: seen(id) });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'upstream_rejected',
      detail: 'maximum is above the program limit',
    });
    expect(await auditFor(res.body.requestId)).toMatchObject([
      { outcome: 'failed', detail: 'upstream_rejected' },
      { outcome: 'started', after: { maximumCents: 9_000_000 } },
    ]);
  });

  it('a PATCH that meets a 503 or a dropped connection is sent exactly once', async () => {
    const id = t.sim.data.cards()[7]?.id ?? '';
    for (const fault of [{ kind: 'status', status: 503 }, { kind: 'drop' }] as const) {
      t.sim.stats.reset();
      t.sim.faults.enqueue({ ...fault, method: 'PATCH' });
      const res = await t.request
        .patch(`/api/cards/${id}`)
        .set(admin.headers())
        .send({ name: 'Once', expected: seen(id) });
      expect(res.status).toBeGreaterThanOrEqual(502);
      apiErrorBodySchema.parse(res.body);
      expect(t.sim.stats.count('PATCH /card/:id')).toBe(1);
    }
  });

  it.each([
    ['name', { name: 'New name' }, 'expected.name'],
    ['minimum', { transactionSizeLimit: { minimumCents: 1 } }, 'expected.minimumCents'],
    ['maximum', { transactionSizeLimit: { maximumCents: 9_999 } }, 'expected.maximumCents'],
  ])(
    'a %s change that does not say what it replaces is a 400 naming what is missing, nothing read',
    async (_what, change, missing) => {
      const id = t.sim.data.cards()[9]?.id ?? '';
      const res = await t.request.patch(`/api/cards/${id}`).set(admin.headers()).send(change);
      expect(res.status).toBe(400);
      const body = apiErrorBodySchema.parse(res.body);
      expect(body.code).toBe('invalid_body');
      expect(body.detail).toContain(missing);
      expect(body.detail).toContain('you saw');
      expect(t.sim.stats.total()).toBe(0);
    },
  );

  it('an unknown field in expected is a 400, nothing read', async () => {
    const id = t.sim.data.cards()[9]?.id ?? '';
    const res = await t.request
      .patch(`/api/cards/${id}`)
      .set(admin.headers())
      .send({ name: 'New name', expected: { ...seen(id), pan: '4242' } });
    expect(res.status).toBe(400);
    expect(apiErrorBodySchema.parse(res.body).code).toBe('invalid_body');
    expect(t.sim.stats.total()).toBe(0);
  });

  it('a stale expected is a 409 card_changed with the current values, nothing sent, audited as not saved', async () => {
    const id = t.sim.data.cards()[10]?.id ?? '';
    const now = seen(id);
    const stale = { ...now, maximumCents: (now.maximumCents ?? 0) + 1 };
    const res = await t.request
      .patch(`/api/cards/${id}`)
      .set(admin.headers())
      .send({ transactionSizeLimit: { minimumCents: 0 }, expected: stale });
    expect(res.status).toBe(409);
    expect(apiErrorBodySchema.parse(res.body)).toEqual({
      type: '/problems/card_changed',
      title: 'Card changed meanwhile',
      status: 409,
      code: 'card_changed',
      detail: expect.stringContaining('Someone else changed this card'),
      requestId: res.headers['x-request-id'],
      current: now,
    });
    expect(t.sim.stats.count('PATCH /card/:id')).toBe(0);
    expect(seen(id)).toEqual(now);
    const records = await auditFor(res.body.requestId);
    expect(records).toMatchObject([
      { action: 'card.update', outcome: 'failed', detail: 'card_changed', cardId: id },
    ]);
    // Nothing was saved: its "after" is the value attempted, not the card's.
    expect(records[0]?.after).toEqual({ minimumCents: 0 });
  });

  it('only the values given in expected are compared: a rename that saw only the name is saved', async () => {
    const id = t.sim.data.cards()[11]?.id ?? '';
    const { name } = seen(id);
    const res = await t.request
      .patch(`/api/cards/${id}`)
      .set(admin.headers())
      .send({ name: 'Office supplies', expected: { name } });
    expect(res.status).toBe(200);
    expect(seen(id).name).toBe('Office supplies');
  });

  it('values as they are: the card as it is, nothing sent or recorded; a stale expected is still a 409; one changed is a change', async () => {
    const id = t.sim.data.cards()[13]?.id ?? '';
    const now = seen(id);
    const asIs = cardSchema.parse(
      (await t.request.get(`/api/cards/${id}`).set(admin.headers())).body,
    );
    t.sim.stats.reset();
    for (const change of [
      // The name as the schema trims it; the limits in cents as they are.
      {
        name: `  ${now.name} `,
        transactionSizeLimit: { minimumCents: now.minimumCents, maximumCents: now.maximumCents },
      },
      { name: now.name },
      { transactionSizeLimit: { maximumCents: now.maximumCents } },
    ]) {
      const same = await t.request
        .patch(`/api/cards/${id}`)
        .set(admin.headers())
        .send({ ...change, expected: now });
      expect(same.status, JSON.stringify(same.body)).toBe(200);
      expect(same.body).toEqual(asIs);
      expect(await auditFor(same.headers['x-request-id'] ?? ''), JSON.stringify(change)).toEqual(
        [],
      );
    }
    expect(t.sim.stats.count('PATCH /card/:id')).toBe(0);

    // Made on values that no longer hold: refused as before, though it would change nothing.
    const stale = await t.request
      .patch(`/api/cards/${id}`)
      .set(admin.headers())
      .send({ name: now.name, expected: { ...now, maximumCents: now.maximumCents + 1 } });
    expect(stale.status).toBe(409);
    expect(await auditFor(stale.headers['x-request-id'] ?? '')).toMatchObject([
      { action: 'card.update', outcome: 'failed', detail: 'card_changed' },
    ]);
    expect(t.sim.stats.count('PATCH /card/:id')).toBe(0);

    const renamed = await t.request
      .patch(`/api/cards/${id}`)
      .set(admin.headers())
      .send({ name: `${now.name} 2`, expected: now });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toEqual({ ...asIs, name: `${now.name} 2` });
    expect(t.sim.stats.count('PATCH /card/:id')).toBe(1);
    expect(await auditFor(renamed.headers['x-request-id'] ?? '')).toMatchObject([
      { action: 'card.update', outcome: 'success', after: { name: `${now.name} 2` } },
      { action: 'card.update', outcome: 'started', before: { name: now.name } },
    ]);
  });

  it('a card with no minimum: expected null matches it, a number does not', async () => {
    const id = t.sim.data.cards()[12]?.id ?? '';
    const card = t.sim.data.card(id);
    if (!card) throw new Error('no card');
    const max = card.spendingConstraint.spendingRule.transactionSizeLimit.maximum;
    // The service answers this card without a minimum (as a real card may be).
    const noMinimum = {
      ...card,
      spendingConstraint: { spendingRule: { transactionSizeLimit: { maximum: max } } },
    };
    const fault = { kind: 'body', route: 'GET /card/:id', body: noMinimum } as const;

    t.sim.faults.enqueue(fault);
    const refused = await t.request
      .patch(`/api/cards/${id}`)
      .set(admin.headers())
      .send({
        transactionSizeLimit: { maximumCents: max.amountCents + 100 },
        expected: { minimumCents: 0, maximumCents: max.amountCents },
      });
    expect(refused.status).toBe(409);
    expect(refused.body.current).toEqual({
      name: card.name,
      minimumCents: null,
      maximumCents: max.amountCents,
    });
    expect(t.sim.stats.count('PATCH /card/:id')).toBe(0);

    t.sim.faults.enqueue(fault);
    const saved = await t.request
      .patch(`/api/cards/${id}`)
      .set(admin.headers())
      .send({
        transactionSizeLimit: { maximumCents: max.amountCents + 100 },
        expected: { minimumCents: null, maximumCents: max.amountCents },
      });
    expect(saved.status).toBe(200);
    expect(saved.body.transactionSizeLimit.maximumCents).toBe(max.amountCents + 100);
  });
});
