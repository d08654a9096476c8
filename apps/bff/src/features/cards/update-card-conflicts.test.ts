// Concurrent edits of one card, over real HTTP against the simulator: a change made from a view
// another change has since made stale is refused (409), never applied on top and lost.
import type { AuditRecord } from '@card-console/shared/api/audit';
import { cardSchema } from '@card-console/shared/api/cards';
import { apiErrorBodySchema } from '@card-console/shared/api/error';
import type { Response } from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cardValuesSeen } from '../../test/card-values';
import { startTestApp, type TestApp, type TestSession } from '../../test/harness';
import { testPan } from '../../test/test-pan';

let t: TestApp;
let alice: TestSession;
let bob: TestSession;

beforeAll(async () => {
  t = await startTestApp({ sim: { transactions: 500 } });
  alice = await t.signIn('admin');
  bob = await t.signIn('admin');
});
afterAll(async () => t.close());
afterEach(() => {
  t.sim.faults.clear();
  t.sim.stats.reset();
});

const seen = (id: string) => cardValuesSeen(t.sim, id);

const patch = (who: TestSession, id: string, body: object) =>
  t.request.patch(`/api/cards/${id}`).set(who.headers()).send(body);

async function auditOf(res: Response): Promise<AuditRecord[]> {
  const id = res.headers['x-request-id'];
  return (await t.audit.list({ limit: 10_000 })).items.filter((r) => r.requestId === id);
}

describe('concurrent edits of one card', () => {
  it('20 trials of a minimum and a maximum change sent at once from the same view: one is saved, the other gets 409 with the current values, nothing is lost', async () => {
    const id = t.sim.data.cards()[20]?.id ?? '';
    const successes: AuditRecord[] = [];
    for (let trial = 0; trial < 20; trial++) {
      const start = seen(id);
      const newMinimum = trial + 1;
      const newMaximum = start.maximumCents + 1_000 + trial;
      t.sim.stats.reset();
      const [a, b] = await Promise.all([
        patch(alice, id, { transactionSizeLimit: { minimumCents: newMinimum }, expected: start }),
        patch(bob, id, { transactionSizeLimit: { maximumCents: newMaximum }, expected: start }),
      ]);
      const label = `trial ${trial}: ${a.status} ${b.status}`;
      expect([a.status, b.status].sort(), label).toEqual([200, 409]);
      const [saved, refused] = a.status === 200 ? [a, b] : [b, a];
      const final = seen(id);

      // The winner's change is on the card; the refused one changed nothing.
      expect(final, label).toEqual(
        saved === a
          ? { ...start, minimumCents: newMinimum }
          : { ...start, maximumCents: newMaximum },
      );
      expect(cardSchema.parse(saved.body).transactionSizeLimit).toEqual({
        minimumCents: final.minimumCents,
        maximumCents: final.maximumCents,
      });
      expect(apiErrorBodySchema.parse(refused.body)).toMatchObject({
        status: 409,
        code: 'card_changed',
        current: final,
      });
      expect(t.sim.stats.count('PATCH /card/:id'), label).toBe(1);

      // The audit tells what happened: one success from the true "before", one refusal.
      const [savedRecord] = await auditOf(saved);
      expect(savedRecord).toMatchObject({ outcome: 'success', before: start, after: final });
      // The refusal keeps what was attempted, beside the card as the change found it.
      const attempted = refused === a ? { minimumCents: newMinimum } : { maximumCents: newMaximum };
      const [refusedRecord] = await auditOf(refused);
      expect(refusedRecord).toMatchObject({
        outcome: 'failed',
        detail: 'card_changed',
        before: final,
      });
      expect(refusedRecord?.after).toEqual(attempted);
      if (savedRecord) successes.push(savedRecord);
    }
    // No two successes from the same "before": each starts where the previous one ended.
    const befores = successes.map((r) => JSON.stringify(r.before));
    expect(new Set(befores).size).toBe(20);
    for (let i = 1; i < successes.length; i++) {
      expect(successes[i]?.before).toEqual(successes[i - 1]?.after);
    }
  });

  it('of 8 changes in flight at once from the same view exactly one is saved, while other cards are edited alongside', async () => {
    const id = t.sim.data.cards()[21]?.id ?? '';
    const others = t.sim.data
      .cards()
      .slice(22, 26)
      .map((c) => c.id);
    const start = seen(id);
    const same = Array.from({ length: 8 }, (_, i) =>
      patch(i % 2 ? alice : bob, id, {
        transactionSizeLimit: { maximumCents: start.maximumCents + 100 * (i + 1) },
        expected: start,
      }),
    );
    const alongside = others.map((other) =>
      patch(alice, other, {
        name: `Edited alongside ${other}`,
        expected: { name: seen(other).name },
      }),
    );
    const answers = await Promise.all(same);
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(7);
    const saved = answers.find((r) => r.status === 200);
    expect(seen(id).maximumCents).toBe(saved?.body.transactionSizeLimit.maximumCents);
    for (const refused of answers.filter((r) => r.status === 409)) {
      expect(refused.body.current).toEqual(seen(id));
    }
    expect((await Promise.all(alongside)).map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(t.sim.stats.count('PATCH /card/:id')).toBe(1 + others.length);
  });

  it('a refused rename records the name attempted, a card number typed into it masked to its last four', async () => {
    const id = t.sim.data.cards()[28]?.id ?? '';
    const start = seen(id);
    const pan = testPan(31);
    const stale = { name: `${start.name} (old view)` };
    const res = await patch(alice, id, { name: `Travel ${pan}`, expected: stale });
    expect(res.status).toBe(409);
    const [record] = await auditOf(res);
    expect(record).toMatchObject({ outcome: 'failed', detail: 'card_changed', before: start });
    expect(record?.after).toEqual({ name: `Travel •••• ${pan.slice(-4)}` });
    expect(JSON.stringify(record)).not.toContain(pan);
    expect(seen(id)).toEqual(start);
  });

  it("an edit reads the card itself instead of sharing another person's read already in flight", async () => {
    const id = t.sim.data.cards()[27]?.id ?? '';
    const start = seen(id);
    t.sim.faults.enqueue({ kind: 'delay', ms: 300, route: 'GET /card/:id' });
    const reading = t.request
      .get(`/api/cards/${id}`)
      .set(bob.headers())
      .then((r) => r);
    while (t.sim.stats.count('GET /card/:id') === 0) await new Promise((r) => setTimeout(r, 5));
    const edit = await patch(alice, id, { name: 'Fresh read', expected: { name: start.name } });
    expect(edit.status).toBe(200);
    expect((await reading).status).toBe(200);
    expect(t.sim.stats.count('GET /card/:id')).toBe(2);
  });
});
