import { describe, expect, it } from 'vitest';
import { ctx, testClient, useSimulator } from '../test/upstream-client';

const upstream = useSimulator();

describe('coalescing identical concurrent reads', () => {
  it('20 people opening the same list cause one upstream call', async () => {
    const { client } = testClient(upstream.url);
    upstream.sim.faults.enqueue({ kind: 'delay', ms: 100 });
    const pages = await Promise.all(
      Array.from({ length: 20 }, (_, i) => client.listCards(ctx('finance', `r${i}`), {})),
    );
    expect(upstream.sim.stats.count('GET /card')).toBe(1);
    expect(new Set(pages.map((p) => p.items.length)).size).toBe(1);
    await client.close();
  });

  it('never shares across roles', async () => {
    const { client } = testClient(upstream.url);
    upstream.sim.faults.enqueue({ kind: 'delay', ms: 100 });
    await Promise.all([
      ...Array.from({ length: 5 }, () => client.listCards(ctx('finance'), {})),
      ...Array.from({ length: 5 }, () => client.listCards(ctx('admin'), {})),
    ]);
    expect(upstream.sim.stats.count('GET /card')).toBe(2);
    await client.close();
  });

  it('never shares between a person’s read and a bulk walk’s (each retries from its own budget)', async () => {
    const { client } = testClient(upstream.url);
    upstream.sim.faults.enqueue({ kind: 'delay', ms: 100 });
    await Promise.all([
      ...Array.from({ length: 3 }, () => client.listCards(ctx('admin'), {})),
      ...Array.from({ length: 3 }, () => client.listCards({ ...ctx('admin'), bulk: true }, {})),
    ]);
    expect(upstream.sim.stats.count('GET /card')).toBe(2);
    await client.close();
  });

  it('never shares a read that asks for PAN and CVV', async () => {
    const { client } = testClient(upstream.url);
    const card = (await client.listCards(ctx('admin'), {})).items[0];
    if (!card) throw new Error('no cards');
    upstream.sim.stats.reset();
    upstream.sim.faults.enqueue({ kind: 'delay', ms: 100 });
    await Promise.all(
      Array.from({ length: 5 }, () => client.getCard(ctx('admin'), card.id, { withSecrets: true })),
    );
    expect(upstream.sim.stats.count('GET /card/:id')).toBe(5);
    await client.close();
  });

  it('different queries are different calls', async () => {
    const { client } = testClient(upstream.url);
    await Promise.all([
      client.listCards(ctx(), { 'filter:status': 'active' }),
      client.listCards(ctx(), { 'filter:status': 'paused' }),
    ]);
    expect(upstream.sim.stats.count('GET /card')).toBe(2);
    await client.close();
  });
});

describe('the retry budget', () => {
  it('stops a retry storm when everything fails', async () => {
    const { client } = testClient(upstream.url, { retryBudgetRatio: 0.1, retryBudgetBurst: 2 });
    for (let i = 0; i < 200; i++) upstream.sim.faults.enqueue({ kind: 'status', status: 503 });
    for (let i = 0; i < 30; i++)
      await client.listCards(ctx(), { cursor: undefined }).catch(() => {});
    // Without a budget: 30 × 3 = 90 upstream calls. With it: 30 + 2 + 0.1 × 30.
    expect(upstream.sim.stats.count('GET /card')).toBeLessThanOrEqual(35);
    await client.close();
  });
});

describe('a retry budget of their own for bulk walks', () => {
  it("bulk calls that use up their retries leave every retry of the reads' budget", async () => {
    const { client } = testClient(upstream.url, {
      retryBudgetRatio: 0.1,
      retryBudgetBurst: 2,
      bulkRetryBudgetBurst: 2,
    });
    const subAccountId = upstream.sim.data.subAccounts()[0]?.id ?? '';
    const bulk = { ...ctx(), signal: new AbortController().signal, bulk: true };
    for (let i = 0; i < 200; i++)
      upstream.sim.faults.enqueue({ kind: 'status', status: 503, route: 'GET /transaction' });
    for (let i = 0; i < 30; i++)
      await client.listTransactionsDeferred(bulk, { subAccountId }).catch(() => {});
    // The bulk budget (burst 2 + 0.1 a call) gave the walks only a few retries of 60.
    expect(upstream.sim.stats.count('GET /transaction')).toBeLessThanOrEqual(35);

    // A read meeting two 503s still gets both of its retries.
    upstream.sim.faults.enqueue(
      { kind: 'status', status: 503, route: 'GET /card' },
      { kind: 'status', status: 503, route: 'GET /card' },
    );
    const page = await client.listCards(ctx(), {});
    expect(page.items.length).toBeGreaterThan(0);
    expect(upstream.sim.stats.count('GET /card')).toBe(3);
    await client.close();
  });
});
