import { cardPageSchema, cardSchema } from '@card-console/shared/api/cards';
import { apiErrorBodySchema } from '@card-console/shared/api/error';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestSession } from '../../test/harness';

let t: TestApp;
let finance: TestSession;
let admin: TestSession;

beforeAll(async () => {
  t = await startTestApp();
  finance = await t.signIn('finance');
  admin = await t.signIn('admin');
});
afterAll(async () => t.close());
afterEach(() => {
  t.sim.faults.clear();
  t.sim.stats.reset();
});

const PAN_LIKE = /\d{13,19}/;

describe('GET /api/cards', () => {
  it('lists the first page for finance, and the cursor reaches the next page', async () => {
    const res = await t.request.get('/api/cards').set(finance.headers());
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toContain('no-store');
    const page = cardPageSchema.parse(res.body);
    const all = t.sim.data.cards();
    expect(page.items.map((c) => c.id)).toEqual(all.slice(0, page.items.length).map((c) => c.id));
    expect(page.nextCursor).toBeDefined();
    const next = await t.request
      .get('/api/cards')
      .query({ cursor: page.nextCursor })
      .set(finance.headers());
    expect(next.status).toBe(200);
    const second = cardPageSchema.parse(next.body);
    expect(second.items[0]?.id).toBe(all[page.items.length]?.id);
  });

  it('filters by status and sorts by name, descending', async () => {
    const res = await t.request
      .get('/api/cards')
      .query({ status: 'active', sort: 'name', direction: 'desc' })
      .set(admin.headers());
    expect(res.status).toBe(200);
    const page = cardPageSchema.parse(res.body);
    expect(page.items.length).toBeGreaterThan(0);
    expect(page.items.every((c) => c.status === 'active')).toBe(true);
    const names = page.items.map((c) => c.name);
    expect(names).toEqual([...names].sort((a, b) => (a < b ? 1 : a > b ? -1 : 0)));
  });

  it('never passes on a PAN or CVV, even when the upstream sends them', async () => {
    const card = t.sim.data.card(t.sim.data.cards()[0]?.id ?? '');
    if (!card) throw new Error('no card');
    t.sim.faults.enqueue({
      kind: 'body',
      body: { items: [{ ...card, secretExtra: 'x' }], metadata: { count: 1 } },
    });
    const res = await t.request.get('/api/cards').set(finance.headers());
    expect(res.status).toBe(200);
    expect(res.text).not.toContain(card.pan);
    expect(res.text).not.toMatch(PAN_LIKE);
    expect(res.body.items[0]).not.toHaveProperty('pan');
    expect(res.body.items[0]).not.toHaveProperty('cvv');
    expect(res.body.items[0]).not.toHaveProperty('secretExtra');
  });

  it('20 concurrent identical list requests cause one upstream call; another role gets its own', async () => {
    t.sim.faults.enqueue({ kind: 'delay', ms: 400 });
    const results = await Promise.all([
      ...Array.from({ length: 20 }, () => t.request.get('/api/cards').set(finance.headers())),
      t.request.get('/api/cards').set(admin.headers()),
    ]);
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(t.sim.stats.count('GET /card')).toBe(2);
  });

  it('refuses unknown, repeated and ill-formed parameters with 400', async () => {
    for (const query of [
      'status=lost',
      'sort=pan',
      'direction=ASC',
      'status=active&status=paused',
      'x=1',
      'cursor=',
      `cursor=${'x'.repeat(2049)}`,
    ]) {
      const res = await t.request.get(`/api/cards?${query}`).set(finance.headers());
      expect(res.status, query).toBe(400);
      apiErrorBodySchema.parse(res.body);
    }
    expect(t.sim.stats.total()).toBe(0);
  });
});

describe('GET /api/cards/:id', () => {
  it('reads one card, without PAN or CVV even when the upstream adds them', async () => {
    const card = t.sim.data.card(t.sim.data.cards()[1]?.id ?? '');
    if (!card) throw new Error('no card');
    t.sim.faults.enqueue({ kind: 'body', body: card });
    const res = await t.request.get(`/api/cards/${card.id}`).set(finance.headers());
    expect(res.status).toBe(200);
    const parsed = cardSchema.parse(res.body);
    expect(parsed).toMatchObject({ id: card.id, last4: card.last4, name: card.name });
    expect(parsed.transactionSizeLimit).toEqual({
      minimumCents: card.spendingConstraint.spendingRule.transactionSizeLimit.minimum.amountCents,
      maximumCents: card.spendingConstraint.spendingRule.transactionSizeLimit.maximum.amountCents,
    });
    expect(res.text).not.toContain(card.pan);
    expect(res.text).not.toContain(`"cvv"`);
  });

  it('an unknown card is 404 not_found; an ill-formed id never reaches the upstream', async () => {
    const missing = await t.request.get('/api/cards/card_does_not_exist').set(finance.headers());
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('not_found');
    t.sim.stats.reset();
    // `..` (escaped, or a client would resolve it away) can never be a path segment upstream.
    const bad = await t.request.get('/api/cards/%2E%2E').set(finance.headers());
    expect(bad.status).toBe(400);
    expect(t.sim.stats.total()).toBe(0);
  });

  it('when the upstream answers 429 twice, the card still loads', async () => {
    const id = t.sim.data.cards()[2]?.id ?? '';
    t.sim.faults.enqueue(
      { kind: 'status', status: 429, retryAfter: '0' },
      { kind: 'status', status: 429, retryAfter: '0' },
    );
    const res = await t.request.get(`/api/cards/${id}`).set(finance.headers());
    expect(res.status).toBe(200);
    expect(t.sim.stats.count('GET /card/:id')).toBe(3);
  });

  it('an upstream that refuses the key gives 502 upstream_key_rejected and an alarm in the log', async () => {
    t.sim.faults.enqueue({ kind: 'status', status: 403 });
    const res = await t.request.get('/api/cards').set(finance.headers());
    expect(res.status).toBe(502);
    expect(apiErrorBodySchema.parse(res.body).code).toBe('upstream_key_rejected');
    const alarm = t.logs.map((l) => JSON.parse(l)).find((l) => l.alarm === 'upstream_key_rejected');
    expect(alarm?.level).toBe(50);
    expect(t.logs.join('\n')).not.toContain(t.apiKey);
  });
});
