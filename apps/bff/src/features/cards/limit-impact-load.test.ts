// A flood of limit previews, over real HTTP against a simulator that rate-limits: previews are
// bulk walks in a few slots, so a person's card list asked for while the service is already
// answering 429 still loads, and every preview ends in an answer or a clear "try again".
import { apiErrorBodySchema } from '@card-console/shared/api/error';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestSession } from '../../test/harness';

describe('limit previews under load', () => {
  let t: TestApp;
  let admin: TestSession;
  let finance: TestSession;

  beforeAll(async () => {
    // A bucket of 20 calls refilled at 10 a second: a few previews' worth.
    t = await startTestApp({
      sim: { cards: 60, rateLimit: { capacity: 20, refillPerSecond: 10 } },
    });
    admin = await t.signIn('admin');
    finance = await t.signIn('finance');
  });
  afterAll(async () => t.close());

  /** The card service has refused a call of the BFF's for its rate limit. */
  const rateLimited = () => t.logs.some((l) => l.includes('"status":429'));

  it('60 previews at once leave a card list asked for in the same moment working', async () => {
    const cards = t.sim.data.cards();
    expect(cards.length).toBe(60);
    const previews = Promise.all(
      cards.map((card) =>
        t.request
          .get(`/api/cards/${card.id}/limit-impact`)
          .query({ maximumCents: '5000' })
          .set(admin.headers()),
      ),
    );
    while (!rateLimited()) await new Promise((resolve) => setTimeout(resolve, 5));

    const list = await t.request.get('/api/cards').set(finance.headers());
    expect(list.status, JSON.stringify(list.body)).toBe(200);

    const answers = await previews;
    // The first previews had the service to themselves: they ran, the rest waited or not.
    expect(answers.filter((a) => a.status === 200).length).toBeGreaterThan(0);
    for (const a of answers) {
      if (a.status === 200) continue;
      expect([429, 503], JSON.stringify(a.body)).toContain(a.status);
      expect(a.headers['retry-after']).toMatch(/^\d+$/);
      const body = apiErrorBodySchema.parse(a.body);
      expect(body.retryAfterSeconds).toBe(Number(a.headers['retry-after']));
    }
    // Those beyond the slots and the line were refused by the BFF, never reaching the service.
    expect(answers.some((a) => a.body.code === 'walks_busy')).toBe(true);
  });
});
