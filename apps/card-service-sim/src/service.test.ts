import { describe, expect, it } from 'vitest';
import { createCardService } from './index';
import { API_KEY, expectError, jsonInit, useService } from './test-support/harness';

describe('authentication and routing', () => {
  const h = useService({ transactions: 100 });

  it('answers 403 with the error body without a key or with a wrong key, on every endpoint', async () => {
    const card = h.service.data.cards()[0]?.id;
    for (const path of ['/card', `/card/${card}`, '/sub-account', '/transaction?subAccountId=x']) {
      expectError(await h.request(path, { key: null }), 403, 'unauthorized');
      expectError(await h.request(path, { key: `${API_KEY}x` }), 403, 'unauthorized');
      expectError(await h.request(path, { key: API_KEY.toUpperCase() }), 403);
    }
    expectError(
      await h.request(`/card/${card}`, { ...jsonInit('PATCH', { name: 'x' }), key: null }),
      403,
    );
    expect(h.service.data.card(card ?? '')?.name).not.toBe('x');
  });

  it('answers 404 with the error body for unknown paths', async () => {
    for (const path of ['/', '/cards', '/card/a/b', '/transactions', '/card/', '/sub-account/x']) {
      expectError(await h.request(path), 404, 'not_found');
    }
  });

  it('answers 405 with the error body and Allow for a wrong method', async () => {
    const r1 = await h.request('/card', jsonInit('POST', { name: 'x' }));
    expectError(r1, 405, 'method_not_allowed');
    expect(r1.headers.get('allow')).toBe('GET');
    const r2 = await h.request('/card/abc', { method: 'DELETE' });
    expectError(r2, 405);
    expect(r2.headers.get('allow')).toBe('GET, PATCH');
    expectError(await h.request('/transaction/abc', { method: 'PUT', body: '{}' }), 405);
    expectError(await h.request('/sub-account', { method: 'PATCH', body: '{}' }), 405);
  });

  it('echoes a plain x-request-id and marks answers no-store', async () => {
    const reply = await h.request('/sub-account', { headers: { 'x-request-id': 'req-123' } });
    expect(reply.headers.get('x-request-id')).toBe('req-123');
    expect(reply.headers.get('cache-control')).toBe('no-store');
    const odd = await h.request('/sub-account', { headers: { 'x-request-id': 'a b<c>' } });
    expect(odd.headers.get('x-request-id')).toBeNull();
  });

  it('counts requests by route template', async () => {
    h.service.stats.reset();
    const card = h.service.data.cards()[0]?.id;
    await h.request('/card');
    await h.request('/card');
    await h.request(`/card/${card}`);
    await h.request(`/card/${card}`, jsonInit('PATCH', { name: 'Counted' }));
    await h.request('/sub-account', jsonInit('POST', { name: 'Counted' }));
    await h.request('/nowhere');
    expect(h.service.stats.count('GET /card')).toBe(2);
    expect(h.service.stats.count('GET /card/:id')).toBe(1);
    expect(h.service.stats.count('PATCH /card/:id')).toBe(1);
    expect(h.service.stats.count('POST /sub-account')).toBe(1);
    expect(h.service.stats.count('GET (unmatched)')).toBe(1);
    expect(h.service.stats.total()).toBe(6);
    expect(h.service.stats.snapshot()).toMatchObject({ 'GET /card': 2 });
    h.service.stats.reset();
    expect(h.service.stats.total()).toBe(0);
  });
});

describe('determinism and lifecycle', () => {
  it('the same seed and clock give the same data; another seed gives other data', () => {
    const now = () => 1_790_000_000_000;
    const a = createCardService({ seed: 7, transactions: 2_000, now });
    const b = createCardService({ seed: 7, transactions: 2_000, now });
    const c = createCardService({ seed: 8, transactions: 2_000, now });
    const dump = (s: typeof a) => ({
      subs: s.data.subAccounts(),
      cards: s.data.cards().map((card) => s.data.card(card.id)),
      txs: s.data.subAccounts().map((sub) => s.data.transactions(sub.id)),
    });
    expect(dump(a)).toEqual(dump(b));
    expect(dump(a)).not.toEqual(dump(c));
  });

  it('spreads transactions over the 18 months before now, all dated at or before now', () => {
    const nowMs = Date.UTC(2026, 5, 15);
    const s = createCardService({ transactions: 5_000, now: () => nowMs });
    const dates = s.data
      .subAccounts()
      .flatMap((sub) => s.data.transactions(sub.id).map((t) => Date.parse(t.date)));
    expect(dates).toHaveLength(5_000);
    expect(Math.max(...dates)).toBeLessThanOrEqual(nowMs);
    expect(Math.min(...dates)).toBe(Date.UTC(2024, 11, 15));
    expect(Math.max(...dates)).toBeGreaterThan(nowMs - 7 * 86_400_000);
  });

  it('close() ends open keep-alive connections and listen() reports a URL without a trailing slash', async () => {
    const s = createCardService({ transactions: 10 });
    const { url, port } = await s.listen();
    expect(url).toBe(`http://127.0.0.1:${port}`);
    await fetch(`${url}/card`, { headers: { 'x-api-key': 'demo-key' } });
    await s.close();
    await expect(fetch(`${url}/card`)).rejects.toThrow();
  });
});
