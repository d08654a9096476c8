import { revealResponseSchema } from '@card-console/shared/api/cards';
import { apiErrorBodySchema } from '@card-console/shared/api/error';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestSession } from '../../test/harness';

let t: TestApp;
let admin: TestSession;
let cardId: string;

beforeAll(async () => {
  t = await startTestApp();
  admin = await t.signIn('admin');
  cardId = t.sim.data.cards()[0]?.id ?? '';
});
afterAll(async () => t.close());
afterEach(() => {
  t.sim.faults.clear();
  t.sim.stats.reset();
});

async function auditFor(requestId: string) {
  const page = await t.audit.list({ limit: 1000 });
  return page.items.filter((r) => r.requestId === requestId);
}

describe('POST /api/cards/:id/reveal', () => {
  it('right after a second-factor sign-in, reveals PAN and CVV, no-store, audited without them', async () => {
    const secret = t.sim.data.card(cardId);
    if (!secret) throw new Error('no card');
    const res = await t.request
      .post(`/api/cards/${cardId}/reveal`)
      .set(admin.headers())
      .send({ reason: 'customer called about a charge' });
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toContain('no-store');
    const body = revealResponseSchema.parse(res.body);
    expect(body).toMatchObject({ cardId, last4: secret.last4, pan: secret.pan, cvv: secret.cvv });

    const records = await auditFor(res.headers['x-request-id'] ?? '');
    // Started before the card service was asked, then its success (newest first).
    expect(records).toHaveLength(2);
    expect(records[1]).toMatchObject({ action: 'card.reveal', outcome: 'started', cardId });
    expect(records[0]).toMatchObject({
      action: 'card.reveal',
      outcome: 'success',
      cardId,
      last4: secret.last4,
      reason: 'customer called about a charge',
      role: 'admin',
    });
    const json = JSON.stringify(records);
    expect(json).not.toContain(secret.pan);
    expect(json).not.toContain(`"${secret.cvv}"`);
    expect(t.logs.join('\n')).not.toContain(secret.pan);
  });

  it('without a reason: 400, nothing read upstream, and the refusal is audited', async () => {
    for (const body of [{}, { reason: '  ' }, { reason: 'ok', extra: 1 }]) {
      const res = await t.request
        .post(`/api/cards/${cardId}/reveal`)
        .set(admin.headers())
        .send(body);
      expect(res.status).toBe(400);
      apiErrorBodySchema.parse(res.body);
      const records = await auditFor(res.body.requestId);
      expect(records).toMatchObject([{ action: 'card.reveal', outcome: 'denied', cardId }]);
    }
    expect(t.sim.stats.total()).toBe(0);
  });

  it('when the second factor is older than 5 minutes: 401 step_up_required, audited; a fresh code works', async () => {
    t.clock.advance(6 * 60_000);
    const refused = await t.request
      .post(`/api/cards/${cardId}/reveal`)
      .set(admin.headers())
      .send({ reason: 'checking a dispute' });
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe('step_up_required');
    expect(refused.text).not.toMatch(/\d{13,19}/);
    expect(await auditFor(refused.body.requestId)).toMatchObject([
      {
        action: 'card.reveal',
        outcome: 'denied',
        reason: 'checking a dispute',
        detail: 'step_up_required',
      },
    ]);
    expect(t.sim.stats.total()).toBe(0);

    const wrong = await t.request
      .post(`/api/cards/${cardId}/reveal`)
      .set(admin.headers())
      .send({ reason: 'checking a dispute', totp: '000000' });
    expect(wrong.status).toBe(401);
    // Newest first: the refused reveal, and before it the failed step-up that refused it.
    expect(await auditFor(wrong.body.requestId)).toMatchObject([
      { action: 'card.reveal', outcome: 'denied' },
      { action: 'session.stepUp', outcome: 'failed', method: 'totp' },
    ]);

    const ok = await t.request
      .post(`/api/cards/${cardId}/reveal`)
      .set(admin.headers())
      .send({ reason: 'checking a dispute', totp: t.adminTotp() });
    expect(ok.status).toBe(200);
    admin.absorb(ok);
    expect(await auditFor(ok.headers['x-request-id'] ?? '')).toMatchObject([
      { action: 'card.reveal', outcome: 'success' },
      { action: 'card.reveal', outcome: 'started' },
      { action: 'session.stepUp', outcome: 'success', method: 'totp' },
    ]);
  });

  it('an unknown card: 404, and the failed attempt is audited', async () => {
    const res = await t.request
      .post('/api/cards/card_nope/reveal')
      .set(admin.headers())
      .send({ reason: 'looking for it' });
    expect(res.status).toBe(404);
    expect(await auditFor(res.body.requestId)).toMatchObject([
      { outcome: 'failed', detail: 'not_found' },
      { outcome: 'started' },
    ]);
  });

  it('a card number typed into the reason never reaches the audit trail', async () => {
    const pan = t.sim.data.card(cardId)?.pan ?? '';
    const res = await t.request
      .post(`/api/cards/${cardId}/reveal`)
      .set(admin.headers())
      .send({ reason: `customer read out ${pan}` });
    expect(res.status).toBe(200);
    const records = await auditFor(res.headers['x-request-id'] ?? '');
    expect(JSON.stringify(records)).not.toContain(pan);
  });

  it.each([
    ['dots', '.'],
    ['no-break spaces', '\u00A0'],
    ['slashes', '/'],
    ['underscores', '_'],
  ])(
    'a card number typed into the reason in groups joined by %s is recorded masked',
    async (_how, join) => {
      const pan = t.sim.data.card(cardId)?.pan ?? '';
      const written = pan.match(/.{1,4}/g)?.join(join) ?? pan;
      const res = await t.request
        .post(`/api/cards/${cardId}/reveal`)
        .set(admin.headers())
        .send({ reason: `customer read out ${written} on 2026/11/26` });
      expect(res.status).toBe(200);
      const [record] = await auditFor(res.headers['x-request-id'] ?? '');
      expect(record?.reason).toBe('customer read out [redacted-number] on 2026/11/26');
      expect(JSON.stringify(record)).not.toContain(written.slice(-9));
    },
  );

  it('concurrent reveals are never shared: each one reads the upstream', async () => {
    t.sim.faults.enqueue({ kind: 'delay', ms: 50 });
    const results = await Promise.all(
      [1, 2, 3].map(() =>
        t.request
          .post(`/api/cards/${cardId}/reveal`)
          .set(admin.headers())
          .send({ reason: 'parallel look' }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(t.sim.stats.count('GET /card/:id')).toBe(3);
  });
});
