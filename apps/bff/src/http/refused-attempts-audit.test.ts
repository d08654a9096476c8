// Refusals that happen before a route's handler still leave a record of who tried: a reveal
// the reveal limit refuses (429), and a mutation from a foreign Origin (403) by a signed-in
// person. An anonymous foreign-Origin call is logged, not audited.
import { apiErrorBodySchema } from '@card-console/shared/api/error';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../test/harness';

let t: TestApp | undefined;
afterEach(() => t?.close());

async function auditFor(app: TestApp, requestId: string) {
  const page = await app.audit.list({ limit: 1000 });
  return page.items.filter((r) => r.requestId === requestId);
}

const foreign = { Origin: 'https://evil.example' };

describe('reveals refused by the reveal limit', () => {
  it('are audited as denied, rate_limited, with the card id, when many arrive at once', async () => {
    const app = await startTestApp({
      sim: { transactions: 50 },
      env: { rateLimits: { revealsPerMinute: 2 } },
    });
    t = app;
    const admin = await app.signIn('admin');
    const cardId = app.sim.data.cards()[0]?.id ?? '';

    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        app.request
          .post(`/api/cards/${cardId}/reveal`)
          .set(admin.headers())
          .send({ reason: 'parallel reveal' }),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 429, 429, 429, 429]);

    for (const res of results) {
      const records = await auditFor(app, res.headers['x-request-id'] ?? '');
      if (res.status === 200) {
        expect(records).toMatchObject([
          { action: 'card.reveal', outcome: 'success', cardId },
          { action: 'card.reveal', outcome: 'started', cardId },
        ]);
      } else {
        expect(apiErrorBodySchema.parse(res.body).code).toBe('rate_limited');
        expect(records).toMatchObject([
          {
            action: 'card.reveal',
            outcome: 'denied',
            detail: 'rate_limited',
            cardId,
            actor: app.credentials.admin.email,
            role: 'admin',
          },
        ]);
      }
    }
    expect(app.sim.stats.count('GET /card/:id')).toBe(2);
  });
});

describe('mutations from a foreign Origin', () => {
  it('by a signed-in person: 403 bad_origin, audited with the route and card, nothing done', async () => {
    const app = await startTestApp({ sim: { transactions: 50 } });
    t = app;
    const admin = await app.signIn('admin');
    const cardId = app.sim.data.cards()[0]?.id ?? '';
    const before = app.sim.stats.total();

    const res = await app.request
      .patch(`/api/cards/${cardId}`)
      .set(admin.headers(foreign))
      .send({ name: 'Forged' });

    expect(res.status).toBe(403);
    expect(apiErrorBodySchema.parse(res.body).code).toBe('bad_origin');
    expect(await auditFor(app, res.body.requestId)).toMatchObject([
      {
        action: 'access.denied',
        outcome: 'denied',
        actor: app.credentials.admin.email,
        role: 'admin',
        target: 'PATCH /api/cards/:id',
        cardId,
        detail: 'bad_origin',
      },
    ]);
    expect(app.sim.stats.total()).toBe(before);
  });

  it('reading the session to audit one does not extend it', async () => {
    const app = await startTestApp({ sim: { transactions: 50 } });
    t = app;
    const finance = await app.signIn('finance');
    const idle = app.config.session.idleMs;

    app.clock.advance(idle - 60_000);
    const refused = await app.request
      .post('/api/sub-accounts')
      .set(finance.headers(foreign))
      .send({ name: 'Forged' });
    expect(refused.status).toBe(403);
    expect(await auditFor(app, refused.body.requestId)).toMatchObject([
      { actor: app.credentials.finance.email, detail: 'bad_origin' },
    ]);

    // Had the refused call counted as activity, the session would last another 15 minutes.
    app.clock.advance(2 * 60_000);
    const after = await app.request.get('/api/session').set(finance.headers());
    expect(after.status).toBe(401);
  });

  it('anonymous: 403 bad_origin, logged with its request id, not audited', async () => {
    const app = await startTestApp({ sim: { transactions: 50 } });
    t = app;
    const res = await app.request
      .post('/api/session')
      .set({ 'X-CSRF': '1', ...foreign })
      .send({ email: 'someone@example.com', password: 'guess' });

    expect(res.status).toBe(403);
    expect(apiErrorBodySchema.parse(res.body).code).toBe('bad_origin');
    expect(await auditFor(app, res.body.requestId)).toEqual([]);
    expect((await app.audit.list({ limit: 10 })).items).toEqual([]);
    const warning = app.logs
      .map((text) => JSON.parse(text) as { msg?: string; requestId?: string })
      .find(
        (line) => line.requestId === res.body.requestId && /foreign Origin/.test(line.msg ?? ''),
      );
    expect(warning).toBeDefined();
  });

  it('count against the per-user limit, so a stream of them is cut off', async () => {
    const app = await startTestApp({
      sim: { transactions: 50 },
      env: { rateLimits: { apiRequestsPerMinute: 3 } },
    });
    t = app;
    const admin = await app.signIn('admin');
    const cardId = app.sim.data.cards()[0]?.id ?? '';

    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        app.request.patch(`/api/cards/${cardId}`).set(admin.headers(foreign)).send({ name: 'x' }),
      ),
    );
    expect(results.filter((r) => r.status === 403)).toHaveLength(3);
    expect(results.filter((r) => r.status === 429)).toHaveLength(5);
    const { items } = await app.audit.list({ limit: 100 });
    expect(items.filter((r) => r.detail === 'bad_origin')).toHaveLength(3);
  });
});
