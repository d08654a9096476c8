import { describe, expect, it } from 'vitest';
import { ctx, testClient, useSimulator } from '../test/upstream-client';

const upstream = useSimulator();

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (e: unknown) => e,
  );

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

describe('the circuit breaker', () => {
  it('stops a retry storm when everything fails: open after its threshold, nothing sent', async () => {
    const { client } = testClient(upstream.url, { breakerThreshold: 5, halfOpenAfterMs: 60_000 });
    for (let i = 0; i < 200; i++) upstream.sim.faults.enqueue({ kind: 'status', status: 503 });
    const errors = [];
    for (let i = 0; i < 30; i++) errors.push(await failure(client.listCards(ctx(), {})));
    // Without a breaker: 30 × 3 = 90 upstream calls. With it: the 5 that opened it.
    expect(upstream.sim.stats.count('GET /card')).toBe(5);
    // Refused at once, as the service being busy, with when to come back.
    expect(errors.at(-1)).toMatchObject({
      status: 503,
      code: 'upstream_unavailable',
      retryAfterSeconds: 60,
    });
    await client.close();
  });

  it('lets one call through after its pause, and closes again when it succeeds', async () => {
    const { client } = testClient(upstream.url, { breakerThreshold: 3, halfOpenAfterMs: 200 });
    for (let i = 0; i < 3; i++) upstream.sim.faults.enqueue({ kind: 'status', status: 503 });
    await failure(client.listCards(ctx(), {}));
    expect(await failure(client.listCards(ctx('admin'), {}))).toMatchObject({
      code: 'upstream_unavailable',
    });
    expect(upstream.sim.stats.count('GET /card')).toBe(3);
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect((await client.listCards(ctx(), {})).items.length).toBeGreaterThan(0);
    expect((await client.listCards(ctx('admin'), {})).items.length).toBeGreaterThan(0);
    expect(upstream.sim.stats.count('GET /card')).toBe(5);
    await client.close();
  });

  it('answers that are not overload (404, 400, 500) never open it', async () => {
    const { client } = testClient(upstream.url, { breakerThreshold: 2, halfOpenAfterMs: 60_000 });
    for (const status of [404, 400, 500, 404, 500])
      upstream.sim.faults.enqueue({ kind: 'status', status });
    for (let i = 0; i < 5; i++) await failure(client.listCards(ctx(), {}));
    expect((await client.listCards(ctx(), {})).items.length).toBeGreaterThan(0);
    expect(upstream.sim.stats.count('GET /card')).toBe(6);
    await client.close();
  });
});

describe('a circuit of their own for bulk walks', () => {
  it("bulk calls that open their circuit leave people's reads their circuit and their retries", async () => {
    const { client } = testClient(upstream.url, { breakerThreshold: 5, halfOpenAfterMs: 60_000 });
    const subAccountId = upstream.sim.data.subAccounts()[0]?.id ?? '';
    const bulk = { ...ctx(), signal: new AbortController().signal, bulk: true };
    for (let i = 0; i < 200; i++)
      upstream.sim.faults.enqueue({ kind: 'status', status: 503, route: 'GET /transaction' });
    for (let i = 0; i < 30; i++)
      await client.listTransactionsDeferred(bulk, { subAccountId }).catch(() => {});
    // The bulk circuit opened after 5 failures of the 90 attempts the walks would have made.
    expect(upstream.sim.stats.count('GET /transaction')).toBe(5);

    // A read meeting two 503s still gets both of its retries.
    upstream.sim.faults.clear();
    upstream.sim.faults.enqueue(
      { kind: 'status', status: 503, route: 'GET /card' },
      { kind: 'status', status: 503, route: 'GET /card' },
    );
    const page = await client.listCards(ctx(), {});
    expect(page.items.length).toBeGreaterThan(0);
    expect(upstream.sim.stats.count('GET /card')).toBe(3);
    // And a person's transactions still load: only the bulk walks' circuit is open.
    expect(await client.listTransactions(ctx(), { subAccountId })).toBeDefined();
    await client.close();
  });
});
