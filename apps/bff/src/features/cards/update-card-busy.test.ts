// An edit that cannot get its card within the wait bound answers 503 with Retry-After instead of
// hanging, sends nothing, and leaves nothing behind in the lock.
import { apiErrorBodySchema } from '@card-console/shared/api/error';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryKeyedLock } from '../../platform/locks/memory-keyed-lock';
import { startTestApp, type TestApp, type TestSession } from '../../test/harness';

let t: TestApp;
let admin: TestSession;
const locks = new MemoryKeyedLock({ waitMs: 50 });

beforeAll(async () => {
  t = await startTestApp({ sim: { transactions: 500 }, locks });
  admin = await t.signIn('admin');
});
afterAll(async () => t.close());

describe('PATCH /api/cards/:id while the card is held', () => {
  it('answers 503 card_busy with Retry-After, sends nothing, audits it; the card is free again after', async () => {
    const id = t.sim.data.cards()[2]?.id ?? '';
    const name = t.sim.data.card(id)?.name ?? '';
    // Another edit of this card that takes long (its read and PATCH still under way).
    let finishOther: () => void = () => {};
    const other = locks.run(`card:${id}`, () => new Promise<void>((r) => (finishOther = r)));
    t.sim.stats.reset();

    const res = await t.request
      .patch(`/api/cards/${id}`)
      .set(admin.headers())
      .send({ name: 'Waited too long', expected: { name } });
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('2');
    expect(apiErrorBodySchema.parse(res.body)).toMatchObject({
      code: 'card_busy',
      retryAfterSeconds: 2,
    });
    expect(t.sim.stats.total()).toBe(0);
    const records = (await t.audit.list({ limit: 100 })).items;
    expect(records.filter((r) => r.requestId === res.body.requestId)).toMatchObject([
      { action: 'card.update', outcome: 'failed', detail: 'card_busy', cardId: id },
    ]);
    expect(locks.waiting).toBe(0);

    finishOther();
    await other;
    expect(locks.size).toBe(0);
    const retry = await t.request
      .patch(`/api/cards/${id}`)
      .set(admin.headers())
      .send({ name: 'Saved on retry', expected: { name } });
    expect(retry.status).toBe(200);
    expect(t.sim.data.card(id)?.name).toBe('Saved on retry');
    expect(locks.size).toBe(0);
  });
});
