import { cardStatuses, upstreamCardSchema } from '@card-console/shared/upstream/card';
import { listEnvelopeSchema } from '@card-console/shared/upstream/common';
import { describe, expect, it } from 'vitest';
import { isLuhnValid } from '../data/luhn';
import type { Card } from '../data/model';
import { collectPages, expectError, jsonInit, useService } from '../test-support/harness';

const byKey = (field: 'createdAt' | 'name') => (a: Card, b: Card) => {
  const [x, y] = [a[field], b[field]];
  if (x !== y) return x < y ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
};

describe('GET /card', () => {
  const h = useService({ cards: 60, transactions: 200, pageSize: { cards: 7 } });

  it('returns well-formed cards without PAN or CVV, sorted by createdAt ascending by default', async () => {
    const page = await h.get('/card');
    const parsed = listEnvelopeSchema(upstreamCardSchema).parse(page);
    expect(parsed.items).toHaveLength(7);
    for (const card of page.items) {
      expect(card).not.toHaveProperty('pan');
      expect(card).not.toHaveProperty('cvv');
      expect(card.expiryMonth).toMatch(/^(0[1-9]|1[0-2])$/);
      expect(card.expiryYear).toMatch(/^\d{4}$/);
    }
    const expected = h.service.data.cards().sort(byKey('createdAt')).slice(0, 7);
    expect(page.items).toEqual(expected);
  });

  for (const sort of ['createdAt', 'name'] as const) {
    for (const direction of ['ASC', 'DESC'] as const) {
      it(`pages through every card sorted by ${sort} ${direction}, each once`, async () => {
        const { items, pages } = await collectPages<Card>(
          h,
          `/card?sort=${sort}&sortDirection=${direction}`,
        );
        const expected = h.service.data.cards().sort(byKey(sort));
        if (direction === 'DESC') expected.reverse();
        expect(items.map((c) => c.id)).toEqual(expected.map((c) => c.id));
        expect(pages).toBe(Math.ceil(expected.length / 7));
      });
    }
  }

  it('filters by each status with filter:status', async () => {
    for (const status of cardStatuses) {
      const { items } = await collectPages<Card>(h, `/card?filter:status=${status}&sort=name`);
      const expected = h.service.data
        .cards()
        .filter((c) => c.status === status)
        .sort(byKey('name'));
      expect(expected.length).toBeGreaterThan(0);
      expect(items.map((c) => c.id)).toEqual(expected.map((c) => c.id));
    }
  });

  it('keeps createdAt paging exact while a card is renamed between pages', async () => {
    const expected = h.service.data.cards().sort(byKey('createdAt'));
    const { items } = await collectPages<Card>(h, '/card?sort=createdAt', async (n) => {
      const target = expected[n * 7 + 2] ?? expected[0];
      const reply = await h.request(`/card/${target?.id}`, jsonInit('PATCH', { name: `AAA ${n}` }));
      expect(reply.status).toBe(200);
    });
    expect(items.map((c) => c.id)).toEqual(expected.map((c) => c.id));
  });

  it('has some cards without a utilization limit', () => {
    const cards = h.service.data.cards();
    const without = cards.filter((c) => !c.spendingConstraint.spendingRule.utilizationLimit);
    expect(without.length).toBeGreaterThan(0);
    expect(without.length).toBeLessThan(cards.length);
  });

  it('rejects bad sort values, lower-case directions, unknown and repeated params with 400', async () => {
    for (const q of [
      'sort=amount',
      'sortDirection=asc',
      'filter:status=frozen',
      'status=active',
      'sort=name&sort=createdAt',
      'cursor=',
      'cursor=not%20valid',
    ]) {
      expectError(await h.request(`/card?${q}`), 400, 'invalid_request');
    }
  });

  it('rejects a cursor reused with another sort or direction with 400', async () => {
    const page = await h.get('/card?sort=name');
    const cursor = page.metadata.nextCursor;
    expectError(await h.request(`/card?sort=createdAt&cursor=${cursor}`), 400);
    expectError(await h.request(`/card?sort=name&sortDirection=DESC&cursor=${cursor}`), 400);
    expectError(await h.request(`/card?sort=name&filter:status=active&cursor=${cursor}`), 400);
    expect((await h.request(`/card?sort=name&cursor=${cursor}`)).status).toBe(200);
  });
});

describe('GET /card/:id', () => {
  const h = useService({ cards: 20, transactions: 100 });

  it('returns the PAN only with include_pan=true and the CVV only with include_cvv=true', async () => {
    const id = h.service.data.cards()[0]?.id;
    const plain = await h.get(`/card/${id}`);
    expect(plain).not.toHaveProperty('pan');
    expect(plain).not.toHaveProperty('cvv');
    const off = await h.get(`/card/${id}?include_pan=false&include_cvv=false`);
    expect(off).toEqual(plain);
    const panOnly = await h.get(`/card/${id}?include_pan=true`);
    expect(panOnly.pan).toMatch(/^\d{16}$/);
    expect(panOnly).not.toHaveProperty('cvv');
    const both = await h.get(`/card/${id}?include_pan=true&include_cvv=true`);
    expect(upstreamCardSchema.parse(both)).toMatchObject(plain);
    expect(both.cvv).toMatch(/^\d{3}$/);
    expect(isLuhnValid(both.pan)).toBe(true);
    expect(both.pan.slice(-4)).toBe(plain.last4);
  });

  it('gives every card a distinct-enough, Luhn-valid, 16-digit PAN and a 3-digit CVV', () => {
    for (const card of h.service.data.cards()) {
      const secret = h.service.data.card(card.id);
      expect(secret?.pan).toMatch(/^4000\d{12}$/);
      expect(isLuhnValid(secret?.pan ?? '')).toBe(true);
      expect(secret?.cvv).toMatch(/^\d{3}$/);
      expect(secret?.pan.slice(-4)).toBe(card.last4);
    }
  });

  it('rejects include_pan values other than true/false with 400', async () => {
    const id = h.service.data.cards()[0]?.id;
    for (const q of ['include_pan=1', 'include_pan=yes', 'include_cvv=TRUE', 'pan=true']) {
      expectError(await h.request(`/card/${id}?${q}`), 400);
    }
  });

  it('answers 404 for an unknown card', async () => {
    expectError(await h.request('/card/card_unknown'), 404, 'not_found');
    expectError(await h.request('/card/..%2F..%2Fetc'), 404, 'not_found');
  });
});

describe('PATCH /card/:id', () => {
  const h = useService({ cards: 20, transactions: 100, pageSize: { cards: 5 } });
  const limitsOf = (card: Card) => card.spendingConstraint.spendingRule.transactionSizeLimit;
  const patch = (id: string, body: unknown) => h.request(`/card/${id}`, jsonInit('PATCH', body));

  it('renames a card, returns it without secrets, and later reads see the change', async () => {
    const id = h.service.data.cards()[0]?.id ?? '';
    const reply = await patch(id, { name: '  Finance Team  ' });
    expect(reply.status).toBe(200);
    const body = upstreamCardSchema.parse(reply.json);
    expect(body.name).toBe('Finance Team');
    expect(body).not.toHaveProperty('pan');
    expect(body).not.toHaveProperty('cvv');
    expect((await h.get(`/card/${id}`)).name).toBe('Finance Team');
  });

  it('sets minimum and maximum, each alone or together, merging with the current limits', async () => {
    const id = h.service.data.cards()[1]?.id ?? '';
    const rule = (minimum?: number, maximum?: number) => ({
      spendingConstraint: {
        spendingRule: {
          transactionSizeLimit: {
            ...(minimum === undefined ? {} : { minimum: { amountCents: minimum } }),
            ...(maximum === undefined ? {} : { maximum: { amountCents: maximum } }),
          },
        },
      },
    });
    expect(limitsOf((await patch(id, rule(100, 90_000))).json as Card)).toEqual({
      minimum: { amountCents: 100 },
      maximum: { amountCents: 90_000 },
    });
    expect(limitsOf((await patch(id, rule(undefined, 50_000))).json as Card)).toEqual({
      minimum: { amountCents: 100 },
      maximum: { amountCents: 50_000 },
    });
    expect(limitsOf((await patch(id, rule(50_000))).json as Card).minimum).toEqual({
      amountCents: 50_000,
    });
    // minimum above the current maximum, after merging: refused, nothing changes.
    expectError(await patch(id, rule(50_001)), 400, 'invalid_request');
    expectError(await patch(id, rule(10, 5)), 400, 'invalid_request');
    expectError(await patch(id, { name: 'Half applied', ...rule(60_000) }), 400);
    const after = await h.get(`/card/${id}`);
    expect(limitsOf(after)).toEqual({
      minimum: { amountCents: 50_000 },
      maximum: { amountCents: 50_000 },
    });
    expect(after.name).not.toBe('Half applied');
  });

  it('rejects bad bodies with 400 and the error body', async () => {
    const id = h.service.data.cards()[2]?.id ?? '';
    const cases: unknown[] = [
      {},
      { name: '' },
      { name: '   ' },
      { name: 'x'.repeat(101) },
      { name: 'bad\u0000name' },
      { name: 42 },
      { status: 'closed' },
      { name: 'ok', extra: true },
      { spendingConstraint: {} },
      {
        spendingConstraint: {
          spendingRule: { transactionSizeLimit: { minimum: { amountCents: -1 } } },
        },
      },
      {
        spendingConstraint: {
          spendingRule: { transactionSizeLimit: { maximum: { amountCents: 1.5 } } },
        },
      },
      { spendingConstraint: { spendingRule: { transactionSizeLimit: { maximum: 100 } } } },
      { spendingConstraint: { spendingRule: { utilizationLimit: {}, transactionSizeLimit: {} } } },
      [],
      'null',
      '"name"',
      '{"name": "unterminated',
    ];
    for (const body of cases) expectError(await patch(id, body), 400, 'invalid_request');
  });

  it('rejects a non-JSON content type, a missing body and an oversize body with 400', async () => {
    const id = h.service.data.cards()[2]?.id ?? '';
    const asText = await h.request(`/card/${id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify({ name: 'Plain' }),
    });
    expectError(asText, 400);
    expectError(await h.request(`/card/${id}`, { method: 'PATCH' }), 400);
    const big = { name: 'Big', padding: 'x'.repeat(17 * 1024) };
    expectError(await patch(id, big), 400);
    const hugeButValidName = JSON.stringify({ name: 'ok' }) + ' '.repeat(16 * 1024);
    expectError(await patch(id, hugeButValidName), 400);
  });

  it('answers 404 for an unknown card', async () => {
    expectError(await patch('card_nope', { name: 'x' }), 404, 'not_found');
  });

  it('keeps a name-sorted cursor under 512 characters even for a long multi-byte name', async () => {
    const cards = h.service.data.cards();
    for (const c of cards) await patch(c.id, { name: '€'.repeat(100) });
    const page = await h.get('/card?sort=name');
    expect(page.metadata.nextCursor.length).toBeLessThanOrEqual(512);
    expect((await h.request(`/card?sort=name&cursor=${page.metadata.nextCursor}`)).status).toBe(
      200,
    );
  });
});
