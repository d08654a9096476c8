import { listEnvelopeSchema } from '@card-console/shared/upstream/common';
import {
  upstreamSubAccountCreatedSchema,
  upstreamSubAccountSchema,
} from '@card-console/shared/upstream/sub-account';
import { describe, expect, it } from 'vitest';
import type { SubAccount } from '../data/model';
import { collectPages, expectError, jsonInit, useService } from '../test-support/harness';

describe('GET /sub-account', () => {
  const h = useService({ subAccounts: 5, transactions: 4_000, pageSize: { subAccounts: 2 } });

  it('lists sub accounts with balance and spend in the list envelope', async () => {
    const page = await h.get('/sub-account');
    const parsed = listEnvelopeSchema(upstreamSubAccountSchema).parse(page);
    expect(parsed.items).toHaveLength(2);
    expect(parsed.metadata).toMatchObject({ count: 2, nextCursor: expect.any(String) });
    for (const item of page.items as SubAccount[]) {
      expect(Number.isInteger(item.balance.amountCents)).toBe(true);
      expect(Number.isInteger(item.spend.amountCents)).toBe(true);
    }
  });

  it('balance and spend agree exactly with the transactions under the documented rule', async () => {
    const { items } = await collectPages<SubAccount>(h, '/sub-account');
    for (const sub of items) {
      const txs = h.service.data.transactions(sub.id);
      const balance = txs
        .filter((t) => ['settled', 'refund', 'dispute'].includes(t.status))
        .reduce((sum, t) => sum + t.amountCents, 0);
      const spend = -txs
        .filter((t) => t.cardId && ['settled', 'pending', 'refund', 'dispute'].includes(t.status))
        .reduce((sum, t) => sum + t.amountCents, 0);
      expect(sub.balance.amountCents).toBe(balance);
      expect(sub.spend.amountCents).toBe(spend);
      expect(sub.balance.amountCents).toBeGreaterThan(0);
      expect(sub.spend.amountCents).toBeGreaterThan(0);
    }
  });

  it('pages to the end with a sub account created between pages appearing exactly once', async () => {
    const before = h.service.data.subAccounts().map((s) => s.id);
    const created: string[] = [];
    const { items } = await collectPages<SubAccount>(h, '/sub-account', async (n) => {
      if (n !== 1) return;
      const reply = await h.request('/sub-account', jsonInit('POST', { name: 'Mid-page' }));
      created.push((reply.json as { id: string }).id);
    });
    expect(items.map((s) => s.id)).toEqual([...before, ...created]);
    expect(items.at(-1)).toMatchObject({
      name: 'Mid-page',
      balance: { amountCents: 0 },
      spend: { amountCents: 0 },
    });
  });

  it('rejects unknown params and a forged cursor with 400', async () => {
    expectError(await h.request('/sub-account?limit=5'), 400);
    expectError(await h.request('/sub-account?cursor=abc.def'), 400);
    const card = await h.get('/card?sortDirection=DESC');
    expectError(await h.request(`/sub-account?cursor=${card.metadata.nextCursor}`), 400);
  });
});

describe('POST /sub-account', () => {
  const h = useService({ transactions: 100 });
  const post = (body: unknown) => h.request('/sub-account', jsonInit('POST', body));

  it('creates a sub account: 201 with only id and name, then listed with zero figures', async () => {
    const reply = await post({ name: ' Events ' });
    expect(reply.status).toBe(201);
    const created = upstreamSubAccountCreatedSchema.parse(reply.json);
    expect(Object.keys(reply.json as object).sort()).toEqual(['id', 'name']);
    expect(created.name).toBe('Events');
    const listed = h.service.data.subAccounts().find((s) => s.id === created.id);
    expect(listed).toEqual({ ...created, balance: { amountCents: 0 }, spend: { amountCents: 0 } });
    const txs = await h.get(`/transaction?subAccountId=${created.id}`);
    expect(txs).toEqual({ items: [], metadata: { count: 0 } });
  });

  it('rejects missing, empty, non-string, extra-field and non-JSON bodies with 400', async () => {
    for (const body of [{}, { name: '' }, { name: 7 }, { name: 'A', id: 'x' }, [], 'nope']) {
      expectError(await post(body), 400, 'invalid_request');
    }
    expectError(await h.request('/sub-account', { method: 'POST' }), 400);
    const count = h.service.data.subAccounts().length;
    expectError(await post({ name: 'x'.repeat(20_000) }), 400);
    expect(h.service.data.subAccounts()).toHaveLength(count);
  });
});
